"""Did an agent's final message ask its user? The classifiers (v1 in `detection`, v2 in
`speech_acts`, the default v3: v2 with a learned veto in `veto`), an LLM judge beside them,
re-applying them to stored runs, and hand labels to score them against."""
