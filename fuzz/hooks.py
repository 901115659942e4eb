"""Schemathesis hooks for scripts/fuzz.

OpenAPI describes the shape of a request, not the server state that also decides whether it
is acceptable. A few refusals of schema-valid requests are therefore correct, and each of them
is named here by the exact problem `code` (and, where the code is shared, `detail`) that the
service answers with, together with the part of the request that caused it:

- a cursor (`cursor`, `since`, or `upTo` in the body of `POST /v1/notifications/read`) that the
  service did not issue for this list: cursors are opaque and signed, so no string a generator
  makes up is one (400 `invalid_cursor`);
- `cursor` and `since` together (400 `invalid_parameter`): the document says "not together",
  which OpenAPI parameters cannot express;
- search with `page × per` over 10,000 (400 `invalid_parameter`): a bound across two parameters;
- an `Idempotency-Key` already used by the same user for a different request
  (422 `idempotency_key_reused`): generators reuse short keys such as "0";
- a reply whose `parentId` is not a top-level comment of that post (422 `validation_failed`);
- following yourself (422 `validation_failed`);
- a password change whose `currentPassword` is not the fuzzer's password (403 `wrong_password`),
  and, past ten such guesses an hour, the change's own budget (429 `rate_limited`).

One acceptance of schema-invalid data is correct too: `displayName` and `bio` exclude every
invisible formatting character in the document (a regular expression cannot say "between two
visible characters"), while the service accepts the joiners (U+200C, U+200D), variation
selectors and tag characters that emoji and scripts need, where they join visible characters.
A value accepted whose only characters outside the pattern are of those is dropped.

`POST /v1/auth/logout-all` is left out of the run (scripts/fuzz): it ends the fuzzer's own
session, and every signed-in case after it would be refused. Tests/ChirpTests/SessionTests.swift
covers it.

One inference of Schemathesis's own is wrong for this API and is dropped too: it reads
`/v1/posts/{id}/like` and `/v1/posts/{id}/likes` as one resource (singular and plural), so it
expects the likers list to be gone after an unlike. The post and its likers list still exist;
only the caller's like is removed (the response's `likeCount` says so).

Nothing else is filtered: any other refusal of valid data, any acceptance of invalid data,
any 5xx and any response that does not match the document fails the run.
"""

import atexit
import collections
import json
import sys

import schemathesis
from schemathesis.core.failures import AcceptedNegativeData
from schemathesis.openapi.checks import RejectedPositiveData, UseAfterFree


def _problem(response):
    try:
        body = json.loads(response.content)
    except (ValueError, TypeError):
        return None
    return body if isinstance(body, dict) else None


def _has(container, name):
    if not container:
        return False
    return any(key.lower() == name.lower() for key in container)


def _expected_refusal(case, response):
    """The reason a schema-valid request was rightly refused, or None."""
    problem = _problem(response)
    if problem is None:
        return None
    status, code, detail = response.status_code, problem.get("code"), problem.get("detail", "")
    query = case.query or {}
    path = case.operation.path
    body = case.body if isinstance(case.body, dict) else {}
    if status == 400 and code == "invalid_cursor" and (
            _has(query, "cursor") or _has(query, "since") or isinstance(body.get("upTo"), str)):
        return "a cursor the service did not issue"
    if (status == 400 and code == "invalid_parameter" and detail == "use either cursor or since, not both"
            and _has(query, "cursor") and _has(query, "since")):
        return "cursor and since together"
    if (status == 400 and code == "invalid_parameter" and detail.startswith("page × per must be at most")
            and path.startswith("/v1/search/")):
        return "page × per over 10,000"
    if status == 422 and code == "idempotency_key_reused" and _has(case.headers, "Idempotency-Key"):
        return "an Idempotency-Key reused for another request"
    if (status == 422 and code == "validation_failed" and detail == "parentId must be a top-level comment of this post"
            and isinstance(case.body, dict) and case.body.get("parentId") is not None):
        return "a parentId that is no top-level comment of the post"
    if (status == 422 and code == "validation_failed" and detail == "you cannot follow yourself"
            and path == "/v1/users/{username}/follow"):
        return "following yourself"
    if status == 403 and code == "wrong_password" and path == "/v1/me/password":
        return "a password change with a current password that is not the fuzzer's"
    if status == 429 and code == "rate_limited" and path == "/v1/me/password":
        return "password changes past their budget"
    return None


# The formatting characters the service accepts in context (Validation.withoutInvisibleFormatting).
_JOINING = {0x200C, 0x200D} | set(range(0xFE00, 0xFE10)) | set(range(0xE0100, 0xE01F0)) | set(range(0xE0020, 0xE0080))
# The document's displayName and bio pattern: control characters, then default-ignorable code points.
_EXCLUDED = (set(range(0x00, 0x09)) | set(range(0x0B, 0x20)) | {0x7F, 0xAD, 0x34F, 0x61C, 0x115F, 0x1160, 0x17B4, 0x17B5}
             | set(range(0x180B, 0x1810)) | set(range(0x200B, 0x2010)) | set(range(0x202A, 0x202F)) | set(range(0x2060, 0x2070))
             | {0x3164, 0xFEFF, 0xFFA0} | set(range(0xFE00, 0xFE10)) | set(range(0xFFF0, 0xFFF9)) | set(range(0x1BCA0, 0x1BCA4))
             | set(range(0x1D173, 0x1D17B)) | set(range(0xE0000, 0xE1000)))


def _only_joining_formatting(case):
    """Whether the body's display name and bio break the document's pattern only by joiners."""
    body = case.body if isinstance(case.body, dict) else {}
    texts = [body.get(name) for name in ("displayName", "bio") if isinstance(body.get(name), str)]
    outside = {ord(c) for text in texts for c in text if ord(c) in _EXCLUDED}
    return bool(outside) and outside <= _JOINING


_dropped = collections.Counter()


@atexit.register
def _report():
    if _dropped:
        lines = "".join(f"\n  {count:6d}  {reason}" for reason, count in _dropped.most_common())
        print(f"fuzz/hooks.py: failures dropped as expected refusals:{lines}", file=sys.stderr)


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """Keeps every failure except a schema-valid request refused for one of the reasons above."""
    reason = None
    if isinstance(failure, RejectedPositiveData) and response is not None:
        reason = _expected_refusal(case, response)
    elif isinstance(failure, AcceptedNegativeData) and _only_joining_formatting(case):
        reason = "joiners and selectors the service accepts between visible characters"
    elif (isinstance(failure, UseAfterFree)
          and failure.free.startswith("DELETE ") and failure.free.endswith("/like")
          and failure.usage.startswith("GET ") and failure.usage.endswith("/likes")):
        reason = "the likers list after an unlike (like ≠ likes)"
    if reason is None:
        return True
    _dropped[reason] += 1
    return False
