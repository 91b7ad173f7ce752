"""Command-line interface of w2v (click)."""
