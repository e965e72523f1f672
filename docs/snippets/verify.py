"""Verifies a Porchlight `lead.created` delivery (Python 3.8+, standard library only).

Pass the exact bytes received (Flask: request.get_data(); Django: request.body), never a
re-serialized JSON body.
"""
import hashlib
import hmac
import re
import sys
import time

TOLERANCE_SECONDS = 300
_DIGITS = re.compile(r"[0-9]{1,15}")


def verify_signature(secret, timestamp, signature, raw_body, now=None):
    if not isinstance(timestamp, str) or not isinstance(signature, str):
        return False
    if not _DIGITS.fullmatch(timestamp):
        return False
    now = time.time() if now is None else now
    if abs(now - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    mac = hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + raw_body, hashlib.sha256)
    expected = "sha256=" + mac.hexdigest()
    return hmac.compare_digest(expected.encode("utf-8"), signature.encode("utf-8"))


# Command line (used by the tests): python3 verify.py SECRET TIMESTAMP SIGNATURE [NOW] < raw-body
if __name__ == "__main__":
    secret, timestamp, signature = sys.argv[1:4]
    now = float(sys.argv[4]) if len(sys.argv) > 4 else None
    valid = verify_signature(secret, timestamp, signature, sys.stdin.buffer.read(), now)
    print("valid" if valid else "invalid")
    sys.exit(0 if valid else 1)
