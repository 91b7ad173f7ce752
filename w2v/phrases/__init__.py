"""Phrases: gensim's ``Phrases`` and ``FrozenPhrases`` over w2v's pair tables, phrase passes over a
corpus's id stream, phrase model files and their settings."""
from .model import ENGLISH_CONNECTOR_WORDS, FrozenPhrases, Phrases, load_phrases, npmi_scorer, original_scorer

__all__ = ["ENGLISH_CONNECTOR_WORDS", "Phrases", "FrozenPhrases", "load_phrases", "original_scorer", "npmi_scorer"]
