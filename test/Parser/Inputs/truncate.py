"""truncate.py FILE MARKER: writes FILE up to the end of the first MARKER,
as a file cut short by a full disk or an interrupted copy would be."""
import sys

text = open(sys.argv[1], "rb").read()
marker = sys.argv[2].encode()
sys.stdout.buffer.write(text[: text.index(marker) + len(marker)])
