"""Did an agent's final message ask its user? The rule-based classifiers (v1 in `detection`,
the default v2 in `speech_acts`), an LLM judge beside them, re-applying them to stored runs,
and hand labels to score them against."""
