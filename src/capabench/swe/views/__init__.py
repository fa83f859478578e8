"""Read-only views of the run store: the HTML dashboard, and locate and sanity (`audit`)."""
