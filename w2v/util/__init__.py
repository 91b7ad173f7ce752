"""Small helpers every package may use: opening inputs, atomic writes, the console, value checks,
keyword aliases, array helpers and the install line of an optional extra.  Nothing here imports another
w2v package but ``w2v.errors``."""
