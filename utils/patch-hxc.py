#!/usr/bin/env python3
"""patch-hxc.py IN OUT WHAT: a copy of compiled model IN with one field changed, for
the tests of the refusals (test/Runtime/compiled-errors.test). WHAT is:
  format    the file format version (header, outside the checksum)
  version   hx's version string, same length (header, outside the checksum)
  payload   one byte in the middle of the payload (the checksum no longer matches)
  truncate  the last 100 bytes cut off
  extra     a byte appended
"""
import struct
import sys

src, dst, what = sys.argv[1:4]
data = bytearray(open(src, "rb").read())
MAGIC = b"\x89HXC\r\n\x1a\n"
assert data.startswith(MAGIC), "not a compiled model"
at = len(MAGIC)
(vlen,) = struct.unpack_from("<Q", data, at + 4)
version_at = at + 12
payload_at = version_at + vlen + 16
if what == "format":
    struct.pack_into("<I", data, at, 99)
elif what == "version":
    data[version_at:version_at + vlen] = b"9" * vlen
elif what == "payload":
    data[(payload_at + len(data)) // 2] ^= 0x40
elif what == "truncate":
    del data[-100:]
elif what == "extra":
    data += b"\0"
else:
    sys.exit(f"patch-hxc.py: unknown field {what}")
open(dst, "wb").write(data)
