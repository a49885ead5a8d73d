"""The bound on what one field may cost a record, so that the memory of drawing a block of records
is bounded whatever the schema asks (README: Limits). Checked on the field tree before anything
is drawn (app/generation/schema/expansion.py) and where a pattern is parsed (values/regex.py)."""

from __future__ import annotations

# the characters one field may need in one record: its repetitions (minItems, minContains,
# minOccurs, minProperties, through every enclosing array) times the fewest characters of its value
# (minLength, length, a pattern's shortest match, totalDigits, its longest enum value). A block of
# 4,096 records then holds at most ~16 M characters of any field: generating 4,096 values of a
# 4,096-character pattern peaked at 0.4 GB for the whole `tdg generate` process
MAX_FIELD_CHARS = 4_096
# a value counts as at least this many characters: a value in a column costs ~190 bytes
# (measured: 4,096 records of 1,000 integers, 0.78 GB), a character of a string ~24
VALUE_CHARS_FLOOR = 8
