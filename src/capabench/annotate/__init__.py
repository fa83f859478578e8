"""The taxonomy validation kit (the paper validated its six mechanisms with three
annotators and Fleiss' kappa): `kit` draws conventions balanced over mechanisms and writes
one sheet per annotator in a cyclic design (CSV and an offline HTML form); `agree` reads the
filled sheets and measures agreement among raters and with the benchmark's labels; `rater`
lets a model rate as one more annotator."""
