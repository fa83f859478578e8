"""Grading stored patches apart from the runs: the rules every grader shares (`grade`), the
local grader (`local`) and the official SWE-bench harness (`harness`, its images in
`harness_images`)."""
