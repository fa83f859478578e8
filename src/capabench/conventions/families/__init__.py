"""One module per convention family; importing this package registers them all."""

from capabench.conventions.families import (  # noqa: F401
    bad_input,
    batch,
    clean_text,
    envelope,
    input_format,
    log_channel,
    naming,
    negative_input,
    number_style,
    packed_args,
    result_file,
    serialized,
    tidy_list,
    yes_no,
)
