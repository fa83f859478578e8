"""The ask-or-guess arm (ambig-SWE): coding agents on repository issues in an ambiguous and
a full form; whether they stop to ask or guess, and whether their patches resolve the issue.

    swe_records.py  instances, the task an agent gets, what a session did (shared by all parts)
    data/           datasets: loading, and the bundled libraries made into repositories
    agents/         the runners (one file each, registered by model prefix), the session
                    recorder they share, workspaces and the processes agents run as
    asks/           did a final message ask? classifiers, the LLM ask judge, hand labels
    grading/        grades of stored patches: the local grader and the official harness
    store.py        the run store; batch.py, preflight.py and evaluate.py fill it
    views/          read-only views of the store: the dashboard, locate and sanity
    containment.py  bubblewrap containment (agents and the local grader's test runs); egress.py
                    the host relay that is a contained CLI's only way to its model endpoint
                    (egress_inside.py, its forwarder inside); git.py: checkouts, patches, and
                    reading an agent's checkout through a git directory of capabench's own
    records.py      the old path of swe_records.py, kept for outside agent runners
"""
