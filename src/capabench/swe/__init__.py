"""The ask-or-guess arm (ambig-SWE): coding agents on repository issues in an ambiguous and
a full form; whether they stop to ask or guess, and whether their patches resolve the issue."""
