"""Drives a molsearch service with the official v2 Python client, unmodified (PyPI deepmedchem).

Usage: python deepmedchem_flow.py
(env: DEEPMEDCHEM_API_KEY, MOLSEARCH_URL, MOLSEARCH_DATABASE, MOLSEARCH_PRICED_DATABASE: a priced one)

Each step uses the client as its documentation shows; any exception the client raises (a 4xx it
does not expect, a response its pydantic models reject) fails the step. Prints one JSON object:
{"steps": {name: "ok" | "error: ..."}, "facts": {...}} and exits 1 when a step failed.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
import uuid

from deepmedchem import Client
from deepmedchem.client import DeepMedChemError
from deepmedchem.selection import Run, Selection

ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"
CAFFEINE = "Cn1c(=O)c2c(ncn2C)n(C)c1=O"
IBUPROFEN = "CC(C)Cc1ccc(C(C)C(=O)O)cc1"

steps: dict[str, str] = {}
facts: dict[str, object] = {}


def step(name):
    def wrap(fn):
        try:
            fn()
            steps[name] = "ok"
        except Exception as error:  # noqa: BLE001 - every failure is reported by name
            detail = getattr(error, "details", None)
            steps[name] = f"error: {type(error).__name__}: {error} {detail or ''}".strip()
            traceback.print_exc(file=sys.stderr)
        return fn

    return wrap


def main() -> int:
    url = os.environ["MOLSEARCH_URL"]
    db = os.environ.get("MOLSEARCH_DATABASE", "drugs")
    client = Client(api_key=os.environ["DEEPMEDCHEM_API_KEY"], api_url=url, max_retries=0)

    @step("catalog")
    def _catalog():
        ids = [lib["database_id"] for lib in client.catalog()["libraries"]]
        assert db in ids, ids

    @step("search")
    def _search():
        result = client.search(ASPIRIN, database=db, limit=5)
        assert len(result) == 5, len(result)
        assert result.ranks == [1, 2, 3, 4, 5], result.ranks
        facts["search_scores"] = dict(zip(result.ids, result.scores))

    @step("sample_twice_one_seed")
    def _sample():
        first = client.sample(database=db, count=5, seed=7)
        second = client.sample(database=db, count=5, seed=7)
        assert first.smiles == second.smiles, (first.smiles, second.smiles)
        assert first.sampling_version == "1", first.sampling_version
        assert first.seed == 7

    @step("substructure")
    def _substructure():
        result = client.search_substructure("c1ccccc1", database=db, limit=5, timeout_seconds=10)
        assert len(result) > 0
        facts["substructure_returned"] = len(result)

    template = Selection.from_database(db).reference("q", smiles=ASPIRIN).maximize_similarity(
        "rdkit.ecfp4_tanimoto", reference="q"
    ).limit(3)

    @step("selections")
    def _selections():
        validation = client.selections.validate(template)
        assert validation.valid
        assert validation.normalized_selection["execution"]["quality"] == "balanced"
        estimate = client.selections.estimate(template)
        assert estimate.execution_tier in {"synchronous", "durable"}
        result = client.selections.create(template)
        assert len(result) == 3 and result.status == "completed", result
        facts["selection_scores"] = dict(zip(result.ids, result.scores))

    # Filters as the SDK's README shows them: each becomes one molecule-selection/1 document with
    # rdkit.* property ids (where=, subset=) or constraints.price (max_price=). The server reports
    # the properties of each hit under its own ids; the test recomputes them with RDKit.
    def hits_of(result):
        return [{"smiles": h.smiles, "price": h.price, "properties": h.properties} for h in result.hits]

    @step("search_where")
    def _search_where():
        mw = client.search(ASPIRIN, database=db, limit=5, where="mw<=400")
        logp = client.search(ASPIRIN, database=db, limit=5, where=["logp<3", "tpsa=20..90"])
        assert len(mw) == 5 and len(logp) == 5, (len(mw), len(logp))
        assert all(h.properties["molecular_weight"] <= 400 for h in mw.hits), hits_of(mw)
        assert all(h.properties["clogp"] < 3 for h in logp.hits), hits_of(logp)
        facts["where_mw"] = hits_of(mw)
        facts["where_logp_tpsa"] = hits_of(logp)

    @step("search_subset")
    def _search_subset():
        druglike = client.search(ASPIRIN, database=db, limit=5, subset="druglike")
        ro3 = client.search(IBUPROFEN, database=db, limit=5, subset="ro3")
        assert len(druglike) == 5 and len(ro3) > 0, (len(druglike), len(ro3))
        facts["subset_druglike"] = hits_of(druglike)
        facts["subset_ro3"] = hits_of(ro3)

    @step("sample_filtered")
    def _sample_filtered():
        first = client.sample(database=db, count=5, seed=11, subset="druglike")
        again = client.sample(database=db, count=5, seed=11, subset="druglike")
        assert len(first) == 5 and first.smiles == again.smiles, (first.smiles, again.smiles)
        assert first.method == "sample", first.method
        facts["sample_druglike"] = hits_of(first)
        facts["sample_where"] = hits_of(client.sample(database=db, count=5, seed=2, where="mw<=300"))

    @step("max_price")
    def _max_price():
        priced_db = os.environ["MOLSEARCH_PRICED_DATABASE"]
        cheap = client.search(ASPIRIN, database=priced_db, limit=10, max_price=100)
        assert len(cheap) == 10 and all(p is not None and p <= 100 for p in cheap.prices), cheap.prices
        kept = client.search(ASPIRIN, database=priced_db, limit=30, max_price=100, keep_unpriced=True)
        assert all(p is None or p <= 100 for p in kept.prices), kept.prices
        sampled = client.sample(database=priced_db, count=5, seed=4, max_price=50)
        assert all(p is not None and p <= 50 for p in sampled.prices), sampled.prices
        facts["max_price"] = cheap.prices
        facts["max_price_keep_unpriced"] = kept.prices
        try:
            client.search(ASPIRIN, database=db, limit=5, max_price=100)
        except DeepMedChemError as error:
            assert (error.status_code, error.code) == (422, "capability_unavailable"), error
            assert "constraints.price" in str(error), error
        else:
            raise AssertionError("a price bound on a catalog without prices was answered")

    run_id: dict[str, str] = {}

    @step("run_with_idempotency_key")
    def _run():
        run = Run.selection_batch(
            template=template, items={"a": {"q": ASPIRIN}, "b": {"q": CAFFEINE}, "c": {"q": IBUPROFEN}}
        )
        key = f"flow-{uuid.uuid4()}"
        created = client.runs.create(run, idempotency_key=key)
        again = client.runs.create(run, idempotency_key=key)
        assert again.id == created.id, (again.id, created.id)
        run_id["ok"] = created.id

    @step("events_until_terminal")
    def _events():
        events = list(client.runs.watch(run_id["ok"], poll_interval=0.2))
        assert events and events[-1].type.startswith("run."), [e.type for e in events]
        assert [e.sequence for e in events] == list(range(1, len(events) + 1))
        final = client.runs.retrieve(run_id["ok"])
        assert final.terminal and final.status == "completed", final.status
        facts["events"] = len(events)

    @step("items_and_results")
    def _results():
        items = list(client.runs.iter_items(run_id["ok"]))
        assert [i.id for i in items] == ["a", "b", "c"], [i.id for i in items]
        assert all(i.status == "succeeded" and i.ok for i in items)
        results = list(client.runs.iter_results(run_id["ok"], order="input"))
        assert [r.id for r in results] == ["a", "b", "c"]
        first = results[0].raw
        assert len(first["results"]) == 3, first
        facts["run_item_scores"] = {hit["product_id"]: hit["score"] for hit in first["results"]}

    @step("run_with_3d_objective_refused")
    def _refused():
        # cheese.shape is served by synchronous selections on 3D-ready catalogs, not by run items:
        # validate warns, the run estimate is not admissible and the run is refused with a 422 naming
        # the objective (before, it was admitted and every item failed with capability_unavailable).
        shape = Selection.from_database(db).reference("q", smiles=ASPIRIN).maximize_similarity(
            "cheese.shape", reference="q"
        ).limit(2)
        warnings = client.selections.validate(shape).warnings
        assert any(w["code"] == "capability_unavailable" for w in warnings), warnings
        run = Run.selection_batch(template=shape, items={"x": {"q": ASPIRIN}})
        estimate = client.runs.estimate(run)
        assert estimate["admissible"] is False and "cheese.shape" in estimate["reason"], estimate
        try:
            client.runs.create(run, idempotency_key=f"flow-refused-{uuid.uuid4()}")
        except DeepMedChemError as error:
            assert (error.status_code, error.code) == (422, "capability_unavailable"), error
            paths = [d["path"] for d in error.details or []]
            assert paths == ["$.selection_template.objectives[0].metric_id"], error.details
        else:
            raise AssertionError("a run with a cheese.shape objective was admitted")

    @step("search_many")
    def _search_many():
        # The SDK reads each query's hits as SearchResult.model_validate(item.result) from
        # GET /runs/{id}/results?order=input: the hits must be inside the item's result.
        batch = client.search_many([ASPIRIN, CAFFEINE, IBUPROFEN], database=db, limit=5, poll_interval=0.2)
        assert batch.status == "completed" and batch.complete, batch
        assert [q.status for q in batch] == ["succeeded"] * 3, [q.status for q in batch]
        for query in batch:
            assert len(query.hits) == 5, (query.query, query.result)
            assert [hit.rank for hit in query.hits] == [1, 2, 3, 4, 5]
            assert all(hit.smiles and hit.product_id for hit in query.hits)
            assert query.result.database_id == db and query.result.meta.returned == 5, query.result
        assert len(batch.to_records()) == 15
        first = batch.queries[0].result
        facts["search_many_scores"] = dict(zip(first.ids, first.scores))

    @step("search_many_invalid_item")
    def _search_many_invalid():
        # One query that does not parse fails as its own item; the other still has its hits.
        batch = client.search_many(
            {"a": "CC(=O)Nc1ccccc1", "bad": "C1CC("}, database=db, limit=5, poll_interval=0.2
        )
        assert batch.status == "completed_with_errors", batch.status
        good, bad = batch.queries
        assert good.query.query_id == "a" and good.succeeded and len(good.hits) == 5, good
        assert bad.query.query_id == "bad" and bad.status == "failed" and not bad.hits, bad
        assert bad.error and bad.error["code"] == "invalid_smiles", bad.error
        assert "C1CC(" in bad.error_message, bad.error_message
        facts["search_many_error"] = bad.error

    @step("cancel")
    def _cancel():
        items = {f"i{n:03d}": {"q": [ASPIRIN, CAFFEINE, IBUPROFEN][n % 3]} for n in range(200)}
        run = Run.selection_batch(template=template, items=items)
        created = client.runs.create(run, idempotency_key=f"flow-cancel-{uuid.uuid4()}")
        client.runs.cancel(created.id)
        final = client.runs.wait(created.id, timeout=120, poll_interval=0.2)
        assert final.status in {"cancelled", "completed"}, final.status
        facts["cancelled_status"] = final.status

    @step("usage")
    def _usage():
        usage = client.usage()
        assert usage.plan and usage.limit and usage.used > 0, usage
        assert usage.remaining == usage.limit - usage.used, usage
        facts["usage"] = {"plan": usage.plan, "used": usage.used, "limit": usage.limit}

    client.close()
    print(json.dumps({"steps": steps, "facts": facts}))
    return 0 if all(v == "ok" for v in steps.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
