"""The commit-msg check of .pre-commit-config.yaml.

A subject of at most 72 characters, then a blank line and a body that says
why (merge and fixup commits excepted).
"""

import sys


def main(path):
    """Return an error message for the commit message in ``path``, or None."""
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if not line.startswith("#")]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        return "empty commit message"
    subject = lines[0]
    if subject.startswith(("Merge ", "fixup! ", "squash! ")):
        return None
    if len(subject) > 72:
        return f"commit subject has {len(subject)} characters (at most 72): {subject!r}"
    if len(lines) < 3 or lines[1].strip() or not any(line.strip() for line in lines[2:]):
        return "a commit needs a body, after a blank line, that says why"
    return None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
