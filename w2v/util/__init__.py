"""Small helpers every package may use: opening inputs, atomic writes, the console, value checks,
keyword aliases and array helpers.  Nothing here imports another w2v package but ``w2v.errors``."""
