"""Export-and-verify throughput of signed attestations (§18), per CPU-second of this process
(time.process_time), beside wall-clock figures.

In one process, on a database of its own (a fresh SQLite file unless --database names one, migrated
first): realm `acme` (this process, under that realm's settings) exports a verified claim's attestation
--count times, each signed anew (read the claim, render it, sign the DSSE PAE with Ed25519); then this
realm, trusting acme with acme's JWKS, checks each envelope as an upload would (evidence.envelopes.inspect:
parse, every §18 check, the signature). Not a test: it prints figures (docs/performance.md records them).

    .venv/bin/python bench/attestations.py --count 2000
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def options():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000, help="attestations exported, then verified")
    parser.add_argument("--database", help="a database URL (default: a fresh SQLite file)")
    return parser.parse_args()


def setup(database):
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parley_site.settings_test")
    os.environ["DATABASE_URL"] = database
    import logging

    import django
    django.setup()
    logging.disable(logging.INFO)  # the setup's token lines; the figures are what this prints
    from django.core.management import call_command
    call_command("migrate", verbosity=0)


def verified_claim():
    from dialectic.models import Claim
    from forum.actors import Actor
    from forum.envelope import clean_envelope
    from forum.services import message_post
    from forum.tokens import token_create

    operator = Actor.for_operator("bench")
    asker, attester, verifier = (Actor.for_token(token_create(operator, handle, rights, handle)[0])
                                 for handle, rights in [("bench-asker", {"read", "write"}),
                                                        ("bench-attester", {"read", "write"}),
                                                        ("bench-verifier", {"read", "write", "verify"})])
    proof = [{"kind": "url", "ref": "https://example.org/evidence"}]
    thread = message_post(asker, clean_envelope({"kind": "ask", "body": "Is the sky blue?"}))[1].pk
    message_post(asker, clean_envelope({"kind": "assert", "body": "The sky is blue.", "thread": thread}))
    claim = Claim.objects.get(thread_id=thread).pk
    for actor, kind in ((attester, "attest"), (verifier, "verify")):
        message_post(actor, clean_envelope({"kind": kind, "body": "Checked.", "thread": thread, "claim": claim,
                                            "proof": proof}))
    return attester, claim


def measured(run, count):
    wall, cpu = time.perf_counter(), time.process_time()
    results = [run() for _ in range(count)]
    return results, time.perf_counter() - wall, time.process_time() - cpu


def main():
    args = options()
    with tempfile.TemporaryDirectory(prefix="parley-bench-attestations-") as scratch:
        setup(args.database or f"sqlite:///{scratch}/bench.sqlite3")
        import json

        from django.test import override_settings

        from evidence.attestations import attestation_export
        from evidence.envelopes import inspect
        from evidence.keys import jwks, key_create
        from evidence.trust import realm_trust
        from forum.actors import Actor

        with override_settings(PARLEY_REALM="acme"):
            key_create()
            reader, claim = verified_claim()
            envelopes, export_wall, export_cpu = measured(
                lambda: json.dumps(attestation_export(reader, claim)).encode(), args.count)
            published = jwks()
        realm_trust(Actor.for_operator("bench"), "acme", published)
        pending = iter(envelopes)
        checked, verify_wall, verify_cpu = measured(lambda: inspect(next(pending)), args.count)
        assert all(attests["realm"] == "acme" and attests["claim"] == f"cl_{claim}" for attests in checked)

    size = sum(map(len, envelopes)) / len(envelopes)
    print(f"attestations: {args.count} exported, then verified; envelope {size:.0f} bytes")
    for name, wall, cpu in (("export", export_wall, export_cpu), ("verify", verify_wall, verify_cpu),
                            ("export+verify", export_wall + verify_wall, export_cpu + verify_cpu)):
        print(f"  {name:14} {args.count / cpu:8.0f} per CPU-second   {args.count / wall:8.0f} per second (wall)   "
              f"{1000 * cpu / args.count:6.2f} ms CPU each")


if __name__ == "__main__":
    main()
