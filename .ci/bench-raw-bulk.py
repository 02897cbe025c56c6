#!/usr/bin/env python3
"""The raw-API floor of a first push (issue 19): the documents of database SOURCE, written
again into a new database TARGET with plain `_bulk_docs` requests of BATCH documents, one
after another on one keep-alive connection, by a client that does nothing else. The documents
are read and encoded before the clock starts, so the time is the server's and the network's.

usage: bench-raw-bulk.py URL SOURCE TARGET [BATCH]   (URL like http://user:password@127.0.0.1:5984)
prints: documents, requests and seconds of the timed writes, as one line.
"""
import base64, http.client, json, sys, time, urllib.parse

url, source, target = sys.argv[1], sys.argv[2], sys.argv[3]
batch = int(sys.argv[4]) if len(sys.argv) > 4 else 500
parts = urllib.parse.urlsplit(url)
headers = {"Content-Type": "application/json", "Accept": "application/json"}
if parts.username:
    token = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
    headers["Authorization"] = "Basic " + base64.b64encode(token.encode()).decode()
connection = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=600)

def request(method, path, body=None):
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read()
    if response.status >= 300:
        sys.exit(f"{method} {path}: HTTP {response.status}: {data[:300]!r}")
    return data

rows = json.loads(request("GET", f"/{source}/_all_docs?include_docs=true"))["rows"]
documents = []
for row in rows:
    document = row["doc"]
    if document["_id"].startswith("_design/"):
        continue
    document.pop("_rev", None)
    documents.append(document)
bodies = [json.dumps({"docs": documents[i:i + batch]}, separators=(",", ":")).encode()
          for i in range(0, len(documents), batch)]
request("PUT", f"/{target}")
start = time.monotonic()
for body in bodies:
    request("POST", f"/{target}/_bulk_docs", body)
elapsed = time.monotonic() - start
# The copy goes again, so that what runs after this on the same server finds it as before.
request("DELETE", f"/{target}")
print(f"{len(documents)} documents, {len(bodies)} _bulk_docs requests of {batch}, serial: {elapsed:.3f} s")
