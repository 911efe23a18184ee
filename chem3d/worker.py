"""The chem3d Temporal worker: RDKit 3D embedding as activities on its own task queues.

    python chem3d/worker.py --address 127.0.0.1:7233 [--namespace default]
        [--task-queue-prefix molsearch] [--concurrency 1]

Two queues, so a query never waits behind a catalog stage:
  <prefix>-chem3d        chem3dEmbedPart (catalog 3D stage), chem3dEmbedBatch
  <prefix>-chem3d-query  chem3dEmbedQuery (one SMILES within a deadline), chem3dEmbedBatch
Inputs and results are JSON objects (contract in workflows/chem3d-contracts.ts). Array fields are
base64 of little-endian bytes. Prints "chem3d worker ready" once both workers poll; SIGTERM or
SIGINT stops polling and lets running activities finish (10 s grace).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from rdkit import RDLogger
from temporalio import activity
from temporalio.client import Client
from temporalio.worker import Worker

from embed import DEFAULT_CONFS, DEFAULT_SEED, RDKIT_VERSION, EmbedError, check_query, describe, embed_mol
from partfile import MAGIC, embed_part, read_smiles

MAX_BATCH = 256
# A query embeds its conformers on this many threads: the request waits for it, and the coordinates
# are the same for any thread count (embed.etkdg_params). At most 2 queries run at once.
QUERY_THREADS = max(1, min(4, os.cpu_count() or 1))


def _b64(b: bytes) -> str:
    return base64.b64encode(b).decode("ascii")


def _one(smiles: str, req: dict, threads: int = 1) -> dict:
    try:
        e = embed_mol(
            smiles,
            confs=int(req.get("confs", DEFAULT_CONFS)),
            seed=int(req.get("seed", DEFAULT_SEED)),
            mmff=bool(req.get("mmff", False)),
            timeout_s=float(req.get("timeoutSeconds", 0)),
            threads=threads,
        )
    except EmbedError as err:
        return {"ok": False, "reason": str(err)}
    except Exception as err:  # RDKit raising on one odd molecule is that molecule's failure
        return {"ok": False, "reason": f"RDKit error: {err}"}
    return {
        "ok": True,
        "atomCount": e.atom_count,
        "confCount": e.conf_count,
        "elements": _b64(e.elements),
        "charges": _b64(e.charges),
        "coords": _b64(e.coords),
    }


@activity.defn(name="chem3dEmbedBatch")
def embed_batch(req: dict) -> dict:
    """Embeds up to MAX_BATCH SMILES in order; every molecule succeeds or carries its reason.

    With req.budgetSeconds (a synchronous request's remaining time), no molecule is started once
    the budget is spent: `molecules` then holds the first ones only and `timedOut` is true, so the
    caller still gets every embedding finished in time instead of none.
    """
    smiles = list(req["smiles"])
    if len(smiles) > MAX_BATCH:
        raise ValueError(f"at most {MAX_BATCH} SMILES per batch, got {len(smiles)}")
    budget = float(req.get("budgetSeconds", 0))
    stop = time.monotonic() + budget if budget > 0 else None
    out = []
    for i, smi in enumerate(smiles):
        if stop is not None and time.monotonic() >= stop:
            return {"rdkitVersion": RDKIT_VERSION, "molecules": out, "timedOut": True}
        activity.heartbeat(i)
        out.append(_one(smi, req))
    return {"rdkitVersion": RDKIT_VERSION, "molecules": out}


@activity.defn(name="chem3dEmbedQuery")
def embed_query(req: dict) -> dict:
    """Embeds one query SMILES, answering within req.budgetSeconds (when given) either way.

    A query that is not done by then answers `ok: false, timedOut: true` with its size and
    flexibility: the worker did take it, so the caller can tell "this molecule is too slow to embed"
    (a 422) from "no worker took it" (Temporal's schedule-to-start timeout, a 503) without guessing
    from a start-to-close timeout. RDKit cannot be interrupted: the embedding thread runs on until
    RDKit's own per-attempt timeout (timeoutSeconds, set to the budget) gives up; the same query
    asked again meanwhile waits for that thread rather than starting another (_embedding).
    """
    smiles = str(req["smiles"])
    try:
        check_query(smiles)
    except EmbedError as err:
        return {"rdkitVersion": RDKIT_VERSION, "molecule": {"ok": False, "reason": str(err)}}
    budget = float(req.get("budgetSeconds", 0))
    if budget <= 0:
        return {"rdkitVersion": RDKIT_VERSION, "molecule": _one(smiles, req, QUERY_THREADS)}
    run, box = _embedding(smiles, {**req, "timeoutSeconds": budget})
    run.join(budget)
    if box:
        return {"rdkitVersion": RDKIT_VERSION, "molecule": box[0]}
    reason = f"could not be embedded in 3D within {budget:g} s ({describe(smiles)})"
    return {"rdkitVersion": RDKIT_VERSION, "molecule": {"ok": False, "reason": reason, "timedOut": True}}


# Query embeddings still running, by SMILES and recipe: a repeated slow query waits for the one
# already running (and may get its result) instead of starting another that cannot be stopped.
_running: dict[tuple, tuple[threading.Thread, list[dict]]] = {}
_running_lock = threading.Lock()


def _embedding(smiles: str, req: dict) -> tuple[threading.Thread, list[dict]]:
    key = (smiles, req.get("confs"), req.get("seed"), bool(req.get("mmff")))
    with _running_lock:
        if key in _running:
            return _running[key]
        box: list[dict] = []

        def work() -> None:
            try:
                box.append(_one(smiles, req, QUERY_THREADS))
            finally:
                with _running_lock:
                    _running.pop(key, None)

        run = threading.Thread(target=work, name="chem3d-query", daemon=True)
        _running[key] = (run, box)
        run.start()
        return run, box


def _part_counts(path: str) -> dict:
    with open(path, "rb") as f:
        if f.readline() != MAGIC:
            raise ValueError(f"{path} is not a part file")
        header = json.loads(f.readline())
    rejected = sum(1 for m in header["molecules"] if "reason" in m)
    return {"rows": header["rows"], "embedded": header["rows"] - rejected, "rejected": rejected}


@activity.defn(name="chem3dEmbedPart")
def embed_part_activity(req: dict) -> dict:
    """Embeds the SMILES file req.inPath into the part file req.outPath (skipped when it exists)."""
    out_path = req["outPath"]
    if os.path.exists(out_path):
        return _part_counts(out_path)
    smiles = read_smiles(req["inPath"])
    return embed_part(
        smiles,
        out_path,
        confs=int(req.get("confs", DEFAULT_CONFS)),
        seed=int(req.get("seed", DEFAULT_SEED)),
        mmff=bool(req.get("mmff", False)),
        timeout_s=float(req.get("timeoutSeconds", 0)),
        progress=lambda i: activity.heartbeat(i),
    )


async def main() -> None:
    RDLogger.DisableLog("rdApp.*")  # per-molecule parse noise; reasons travel in the results
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--address", required=True)
    ap.add_argument("--namespace", default="default")
    ap.add_argument("--task-queue-prefix", default="molsearch")
    ap.add_argument("--concurrency", type=int, default=1, help="catalog activities at once")
    args = ap.parse_args()
    client = await Client.connect(args.address, namespace=args.namespace)
    executor = ThreadPoolExecutor(max_workers=args.concurrency + 2)
    common = dict(activity_executor=executor, graceful_shutdown_timeout=timedelta(seconds=10))
    workers = [
        Worker(
            client,
            task_queue=f"{args.task_queue_prefix}-chem3d",
            activities=[embed_part_activity, embed_batch],
            max_concurrent_activities=args.concurrency,
            **common,
        ),
        Worker(
            client,
            task_queue=f"{args.task_queue_prefix}-chem3d-query",
            activities=[embed_query, embed_batch],
            max_concurrent_activities=2,
            **common,
        ),
    ]
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    runs = [asyncio.create_task(w.run()) for w in workers]
    print(f"chem3d worker ready (rdkit {RDKIT_VERSION}, queues {args.task_queue_prefix}-chem3d[-query])", flush=True)
    done, _ = await asyncio.wait([*runs, asyncio.create_task(stop.wait())], return_when=asyncio.FIRST_COMPLETED)
    for t in done:
        if t in runs and t.exception():
            print(f"chem3d worker failed: {t.exception()}", file=sys.stderr, flush=True)
    await asyncio.gather(*(w.shutdown() for w in workers), return_exceptions=True)
    executor.shutdown(wait=True, cancel_futures=True)
    print("chem3d worker stopped", flush=True)
    # The Temporal core's native threads abort a normal interpreter finalisation; all work is done.
    os._exit(0)


if __name__ == "__main__":
    asyncio.run(main())
