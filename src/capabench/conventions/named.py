"""Words shared by the naming family and the simulated user's frames (simulate/intent/frames.py),
which read them without importing a family's module."""

# What has a name of its own that is not the function's: a file, a variable, a helper...
OTHER_NAMED = (
    r"(?:temp\w*|branch\w*|variables?|vars?|locals?|tests?|modules?|files?|folders?|director\w+|"
    r"commits?|prs?|columns?|keys?|fields?|loggers?|loops?|lists?|dicts?|helpers?|closures?|lambdas?|"
    r"inner|intermediate|params?|parameters?|arguments?|args?|class(?:es)?|records?|attributes?|"
    r"constants?|counters?|accumulators?)"
)
