"""Building the CAPA benchmark: profiles, the balanced design, the three stages, validators, export."""
