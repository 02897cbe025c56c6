#!/usr/bin/env python3
"""Crash suite: kill -9 the `cardsync` binary at random moments and check what survives.

Each round picks a scenario, starts the command, sends SIGKILL after a random delay drawn from
[0, 1.3 x the command's measured clean duration], then checks the invariants:

  * the journal opens and `cardsync check` finds folder, journal and index in agreement;
  * no acknowledged write is lost (a finished import, the user's folder edits, a server write
    answered 201);
  * running the command again converges to the state an uninterrupted run reaches, and a
    further run changes nothing.

Scenarios: import, scan, sync, pull, compact, serve. To add one, write a function
`scenario_NAME(suite, rng, round_dir) -> Outcome` and add it to SCENARIOS; `suite.kill_at_random`
runs a command and kills it, `suite.verify_book` checks a book.

  python3 .ci/crash-suite.py --binary .build/debug/cardsync --rounds 30 --seed 1
"""
import argparse
import base64
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request


class Failure(Exception):
    pass


class Outcome:
    def __init__(self, killed_while_running, detail=""):
        self.killed_while_running = killed_while_running
        self.detail = detail


class Suite:
    def __init__(self, binary, work):
        self.binary = os.path.abspath(binary)
        self.work = work
        self.durations = {}

    # ---------------------------------------------------------------- helpers
    def run(self, args, check=True, **kwargs):
        result = subprocess.run([self.binary] + args, capture_output=True, text=True, **kwargs)
        if check and result.returncode != 0:
            raise Failure(f"cardsync {' '.join(args)} exited {result.returncode}: {result.stderr[-2000:]}")
        return result

    def timed(self, key, args):
        start = time.monotonic()
        self.run(args)
        self.durations[key] = max(self.durations.get(key, 0), time.monotonic() - start)

    def kill_at_random(self, args, rng, key):
        """Starts `cardsync args`, SIGKILLs it after a random delay; True when it was still running.
        A run that ends before its kill also times the command: a probe slowed by the machine
        (one CI run's pull probe left all six pull rounds unkilled) is corrected for the rounds
        after it."""
        delay = rng.uniform(0, 1.3 * self.durations[key])
        start = time.monotonic()
        process = subprocess.Popen([self.binary] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            process.wait(timeout=delay)
            self.durations[key] = min(self.durations[key], time.monotonic() - start)
            return False
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.wait()
            return True

    def verify_book(self, book):
        result = self.run(["check", book], check=False)
        if result.returncode != 0:
            raise Failure(f"cardsync check {book} exited {result.returncode}:\n{result.stdout[-3000:]}{result.stderr[-2000:]}")

    def signature(self, book):
        """What the book holds, independent of file names and UIDs: sorted contact summaries."""
        listing = json.loads(self.run(["list", book, "--format", "json"]).stdout)
        rows = []
        for contact in listing["contacts"]:
            summary = dict(contact)
            summary.pop("file", None)
            summary.pop("uid", None)
            rows.append(json.dumps(summary, sort_keys=True))
        return sorted(rows)

    @staticmethod
    def journal_lines(book):
        with open(os.path.join(book, ".cardsync", "journal.jsonl"), "rb") as handle:
            return sum(1 for _ in handle)


# -------------------------------------------------------------------- fixtures
def prepare(suite):
    work = suite.work
    suite.cards = os.path.join(work, "cards.vcf")
    suite.extra = os.path.join(work, "extra.vcf")
    suite.run(["generate", "--count", "150", "--seed", "8", "--version", "mixed", "-o", suite.cards])
    suite.run(["generate", "--count", "40", "--seed", "9", "--version", "4.0", "-o", suite.extra])

    reference = os.path.join(work, "reference")
    suite.run(["init", reference])
    suite.timed("import", ["import", suite.cards, "--into", reference])
    suite.reference_signature = suite.signature(reference)
    suite.template = reference

    history = os.path.join(work, "history")
    shutil.copytree(reference, history, symlinks=True)
    for generation in range(3):
        edit_files(history, random.Random(100 + generation), 60, f"gen{generation}")
        suite.run(["scan", history])
    suite.history = history
    probe = os.path.join(work, "compact-probe")
    shutil.copytree(history, probe, symlinks=True)
    suite.timed("compact", ["compact", probe, "--keep", "2"])
    suite.compacted_lines = Suite.journal_lines(probe)
    suite.history_signature = suite.signature(history)


def contact_files(book):
    return sorted(name for name in os.listdir(book) if name.endswith(".vcf"))


def edit_files(book, rng, count, tag):
    """Changes the FN of `count` contacts, as another program would."""
    for name in rng.sample(contact_files(book), count):
        path = os.path.join(book, name)
        with open(path, "rb") as handle:
            lines = handle.read().split(b"\n")
        out = []
        for line in lines:
            if line.upper().startswith(b"FN:") or line.upper().startswith(b"FN;"):
                line = line.rstrip(b"\r") + f" {tag}".encode() + (b"\r" if line.endswith(b"\r") else b"")
            out.append(line)
        with open(path, "wb") as handle:
            handle.write(b"\n".join(out))


def mutate_folder(suite, book, rng):
    """Edits, deletes and adds contact files; returns nothing (the expected state comes from a clean scan)."""
    edit_files(book, rng, 40, f"edit{rng.randrange(1000)}")
    for name in rng.sample(contact_files(book), 20):
        os.remove(os.path.join(book, name))
    with open(suite.extra, "rb") as handle:
        cards = handle.read().split(b"BEGIN:VCARD")[1:]
    for index, card in enumerate(rng.sample(cards, 15)):
        with open(os.path.join(book, f"added-{index}.vcf"), "wb") as handle:
            handle.write(b"BEGIN:VCARD" + card)


# -------------------------------------------------------------------- scenarios
def scenario_import(suite, rng, round_dir):
    book = os.path.join(round_dir, "book")
    suite.run(["init", book])
    killed = suite.kill_at_random(["import", suite.cards, "--into", book], rng, "import")
    suite.verify_book(book)
    if not killed and suite.signature(book) != suite.reference_signature:
        raise Failure("an import that finished before the kill lost or duplicated contacts")
    suite.run(["import", suite.cards, "--into", book])
    suite.verify_book(book)
    if suite.signature(book) != suite.reference_signature:
        raise Failure("after re-running the import the book differs from an uninterrupted import")
    again = json.loads(suite.run(["import", suite.cards, "--into", book, "--format", "json"]).stdout)
    if again["added"] != 0 or again["updated"]:
        raise Failure(f"a third import still changed the book: added {again['added']}, updated {len(again['updated'])}")
    return Outcome(killed)


def scenario_scan(suite, rng, round_dir):
    seed = rng.randrange(1 << 30)
    book = os.path.join(round_dir, "book")
    expected_book = os.path.join(round_dir, "expected")
    for folder in (book, expected_book):
        shutil.copytree(suite.template, folder, symlinks=True)
        mutate_folder(suite, folder, random.Random(seed))
    suite.timed("scan", ["scan", expected_book])
    expected = suite.signature(expected_book)
    killed = suite.kill_at_random(["scan", book], rng, "scan")
    suite.verify_book(book)
    if suite.signature(book) != expected:
        raise Failure("after an interrupted scan the book differs from the folder as the user left it")
    lines = Suite.journal_lines(book)
    suite.run(["scan", book])
    if Suite.journal_lines(book) != lines:
        raise Failure("a scan after the recovery recorded new events: it did not converge")
    return Outcome(killed)


def scenario_compact(suite, rng, round_dir):
    book = os.path.join(round_dir, "book")
    shutil.copytree(suite.history, book, symlinks=True)
    killed = suite.kill_at_random(["compact", book, "--keep", "2"], rng, "compact")
    suite.verify_book(book)
    if suite.signature(book) != suite.history_signature:
        raise Failure("an interrupted compact changed the contacts")
    suite.run(["compact", book, "--keep", "2"])
    suite.verify_book(book)
    if Suite.journal_lines(book) != suite.compacted_lines:
        raise Failure(f"re-running compact left {Suite.journal_lines(book)} journal lines, an uninterrupted one {suite.compacted_lines}")
    return Outcome(killed)


class Server:
    def __init__(self, suite, data):
        env = dict(os.environ, CARDSYNC_ADMIN_PASSWORD="crash-suite-pw")
        self.log = open(os.path.join(data + ".log"), "ab")
        self.process = subprocess.Popen([suite.binary, "serve", "--data", data, "--port", "0", "--admin", "admin"],
                                        stdout=subprocess.PIPE, stderr=self.log, env=env)
        line = self.process.stdout.readline().decode()
        if "listening on http://" not in line:
            raise Failure(f"cardsync serve did not start: {line!r}")
        self.url = line.split("listening on ")[1].split()[0]
        self.auth = "Basic " + base64.b64encode(b"admin:crash-suite-pw").decode()

    def request(self, method, path, body=None, timeout=10):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Authorization": self.auth, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.log.close()


def scenario_serve(suite, rng, round_dir):
    data = os.path.join(round_dir, "data")
    server = Server(suite, data)
    status, _ = server.request("PUT", "/contacts")
    if status != 201:
        raise Failure(f"PUT /contacts answered {status}")
    acknowledged = {}  # id -> (rev, body)
    deadline = time.monotonic() + rng.uniform(0.05, 1.5)
    index = 0
    while time.monotonic() < deadline:
        if acknowledged and rng.random() < 0.3:
            doc_id = rng.choice(sorted(acknowledged))
            rev, _ = acknowledged[doc_id]
            body = {"n": index, "_rev": rev, "note": "edit"}
        else:
            doc_id = f"card-{index}"
            body = {"n": index, "name": f"Contact {index}", "pad": "x" * rng.randrange(0, 4000)}
        status, answer = server.request("PUT", f"/contacts/{doc_id}", body)
        if status in (201, 202):
            clean = {k: v for k, v in body.items() if k != "_rev"}
            acknowledged[doc_id] = (answer["rev"], clean)
        index += 1
    server.kill()  # SIGKILL in the middle of the write stream (requests keep coming until now)

    server = Server(suite, data)
    try:
        for doc_id, (rev, body) in acknowledged.items():
            status, document = server.request("GET", f"/contacts/{doc_id}")
            if status != 200:
                raise Failure(f"acknowledged {doc_id} {rev} is gone after kill -9 (GET answered {status})")
            if document["_rev"] != rev or {k: v for k, v in document.items() if not k.startswith("_")} != body:
                raise Failure(f"{doc_id}: acknowledged {rev}, after kill -9 the server has {document['_rev']}")
        # Converges: the database takes writes again and counts what it holds.
        for extra in range(5):
            status, _ = server.request("PUT", f"/contacts/after-{extra}", {"after": extra})
            if status != 201:
                raise Failure(f"a write after the restart answered {status}")
        status, info = server.request("GET", "/contacts")
        if info["doc_count"] < len(acknowledged) + 5:
            raise Failure(f"doc_count {info['doc_count']} < {len(acknowledged) + 5} acknowledged")
    finally:
        server.kill()
    return Outcome(True, f"{len(acknowledged)} acknowledged writes")


def check_converged(suite, book, remote):
    """A further sync of `book` with `remote` changes nothing."""
    again = json.loads(suite.run(["sync", book, "--remote", remote, "--format", "json"]).stdout)
    changed = sum(again["summary"][side][kind] for side in ("pulled", "pushed") for kind in ("added", "updated", "deleted"))
    if changed:
        raise Failure(f"a further sync still changed {changed} contacts: it did not converge")


def scenario_sync(suite, rng, round_dir):
    """kill -9 during `cardsync sync` (a first push with folder edits): the book stays consistent,
    the next sync converges, and a fresh book pulls exactly the folder's contacts."""
    server = Server(suite, os.path.join(round_dir, "data"))
    os.environ["CARDSYNC_PASSWORD"] = "crash-suite-pw"
    try:
        base = server.url.replace("http://", "http://admin@")
        if "sync" not in suite.durations:
            probe = os.path.join(round_dir, "probe")
            shutil.copytree(suite.template, probe, symlinks=True)
            suite.timed("sync", ["sync", probe, "--remote", base + "/probe"])
        remote = base + "/contacts"
        book = os.path.join(round_dir, "book")
        expected_book = os.path.join(round_dir, "expected")
        seed = rng.randrange(1 << 30)
        for folder in (book, expected_book):
            shutil.copytree(suite.template, folder, symlinks=True)
            edit_files(folder, random.Random(seed), 20, "sync")
        suite.run(["scan", expected_book])
        expected = suite.signature(expected_book)
        killed = suite.kill_at_random(["sync", book, "--remote", remote], rng, "sync")
        suite.verify_book(book)
        if suite.signature(book) != expected:
            raise Failure("after an interrupted sync the book differs from the folder as the user left it")
        suite.run(["sync", book, "--remote", remote])
        suite.verify_book(book)
        fresh = os.path.join(round_dir, "fresh")
        suite.run(["init", fresh])
        suite.run(["sync", fresh, "--remote", remote])
        if suite.signature(fresh) != expected:
            raise Failure("a fresh book synced from the server after the recovery lost or duplicated contacts")
        check_converged(suite, book, remote)
    finally:
        server.kill()
    return Outcome(killed)


def prepare_pull(suite, rng, folder, server, database):
    """Two books in step through `database`, then 40 edits and 20 deletions made in the first and
    pushed: the second book's next sync pulls them over files it holds. Returns that book, its
    remote and what it must hold once it has pulled them."""
    remote = server.url.replace("http://", "http://admin@") + "/" + database
    source = os.path.join(folder, "source")
    book = os.path.join(folder, "book")
    shutil.copytree(suite.template, source, symlinks=True)
    suite.run(["sync", source, "--remote", remote])
    suite.run(["init", book])
    suite.run(["sync", book, "--remote", remote])
    edit_files(source, rng, 40, f"pulled{rng.randrange(1000)}")
    for name in rng.sample(contact_files(source), 20):
        os.remove(os.path.join(source, name))
    suite.run(["sync", source, "--remote", remote])
    return book, remote, suite.signature(source)


def scenario_pull(suite, rng, round_dir):
    """kill -9 during a `cardsync sync` that pulls edits and deletions over files the book holds
    (it sets the old files aside in .cardsync/released/ and frees them on a helper thread): the
    book stays consistent, the next sync brings it to the server's contacts, nothing set aside
    is left once a sync has finished, and a further sync changes nothing."""
    server = Server(suite, os.path.join(round_dir, "data"))
    os.environ["CARDSYNC_PASSWORD"] = "crash-suite-pw"
    try:
        if "pull" not in suite.durations:
            probe = os.path.join(round_dir, "probe")
            os.makedirs(probe)
            probe_book, probe_remote, _ = prepare_pull(suite, rng, probe, server, "probe")
            suite.timed("pull", ["sync", probe_book, "--remote", probe_remote])
        book, remote, expected = prepare_pull(suite, rng, round_dir, server, "contacts")
        killed = suite.kill_at_random(["sync", book, "--remote", remote], rng, "pull")
        suite.verify_book(book)
        suite.run(["sync", book, "--remote", remote])
        suite.verify_book(book)
        if suite.signature(book) != expected:
            raise Failure("after an interrupted pull and the next sync the book differs from the server's contacts")
        released = os.path.join(book, ".cardsync", "released")
        if os.path.isdir(released) and os.listdir(released):
            raise Failure(f"{len(os.listdir(released))} old files set aside by the pull are still in {released}")
        check_converged(suite, book, remote)
    finally:
        server.kill()
    return Outcome(killed)


SCENARIOS = {
    "import": scenario_import,
    "scan": scenario_scan,
    "sync": scenario_sync,
    "pull": scenario_pull,
    "compact": scenario_compact,
    "serve": scenario_serve,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()
    names = args.scenarios.split(",")
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="cardsync-crash-")
    suite = Suite(args.binary, work)
    started = time.monotonic()
    prepare(suite)
    counts = {name: {"rounds": 0, "killedWhileRunning": 0} for name in names}
    failures = []
    for number in range(args.rounds):
        name = names[number % len(names)]
        round_dir = os.path.join(work, f"round-{number}")
        os.makedirs(round_dir)
        try:
            outcome = SCENARIOS[name](suite, rng, round_dir)
            counts[name]["rounds"] += 1
            counts[name]["killedWhileRunning"] += int(outcome.killed_while_running)
            shutil.rmtree(round_dir)
        except Failure as failure:
            failures.append(f"round {number} ({name}): {failure}")
            print(f"FAIL round {number} ({name}): {failure}  [kept {round_dir}]", file=sys.stderr)
        if (number + 1) % 25 == 0:
            print(f"{number + 1}/{args.rounds} rounds, {len(failures)} failed", file=sys.stderr)
    summary = {"rounds": args.rounds, "failed": len(failures), "seed": args.seed, "scenarios": counts,
               "seconds": round(time.monotonic() - started, 1)}
    print(json.dumps(summary, sort_keys=True))
    if not args.keep and not failures:
        shutil.rmtree(work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
