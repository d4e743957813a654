"""tcgen.wet against the `wet` command: on the toy program of
tests/wet/make_synthetic_wet.py, built by `wet build`, every query's arrays
equal what the command prints for the same query (its text parsed), for
several pcs, and every refusal is tcgen.Error with the command's message."""

import re
import threading

import numpy
import pytest

import tcgen
import tcgen.wet
from conftest import run_wet


def parse(lines, columns):
    """Lines of whitespace-separated fields as {name: array}; `columns` maps
    each name to its dtype, or to None for a field to skip."""
    rows = [line.split() for line in lines]
    arrays = {}
    for index, (name, dtype) in enumerate(columns):
        if dtype is None:
            continue
        values = [row[index] for row in rows]
        if dtype == "U1":
            arrays[name] = numpy.array(values, dtype="U1")
        else:
            arrays[name] = numpy.array([int(value, 0) if value != "-" else 0 for value in values], dtype=dtype)
    return arrays


def assert_same(ours, theirs):
    assert sorted(theirs) == sorted(ours)
    for name in theirs:
        assert ours[name].dtype == theirs[name].dtype, name
        numpy.testing.assert_array_equal(ours[name], theirs[name], err_msg=name)


@pytest.fixture()
def trace(toy):
    with tcgen.wet.open(toy[0]) as opened:
        yield opened


def pcs_of(trace, kind, count=4):
    top = trace.top(count)
    return [int(pc) for pc in top["pc"][top["kind"] == kind]]


def test_stats_are_what_wet_build_reports(toy, trace):
    reported = re.search(r"(\d+) timestamps, (\d+) blocks, (\d+) nodes, (\d+) events, (\d+) defs", toy[1])
    assert reported, toy[1]
    numbers = [int(group) for group in reported.groups()]
    assert trace.stats() == dict(zip(["executed", "blocks", "nodes", "events", "defs"], numbers))


def test_control_flow_and_top(toy, trace):
    columns = [("t", numpy.uint32), ("pc", numpy.uint64), ("block", numpy.uint32)]
    assert_same(trace.cf(), parse(run_wet("cf", toy[0], "--ids")[0], columns))
    assert_same(trace.cf(7, 20), parse(run_wet("cf", toy[0], "--ids", "--from=7", "--count=20")[0], columns))
    assert len(trace.cf(trace.stats()["executed"], 50)["t"]) == 1
    for count in (1, 3, 100):
        lines = [line + " 0" if not line.startswith("B") else line for line in run_wet("top", toy[0], "--count",
                                                                                      count)[0]]
        expected = parse(lines, [("kind", "U1"), ("executions", numpy.uint64), ("pc", numpy.uint64),
                                 ("id", numpy.uint32)])
        assert_same(trace.top(count), expected)


def test_values_and_addresses_of_several_pcs(toy, trace):
    pcs = pcs_of(trace, "L") + pcs_of(trace, "S")
    assert len(pcs) >= 4
    for pc in pcs:
        for query, column in (("values", "value"), ("addresses", "address")):
            expected = parse(run_wet(query, toy[0], hex(pc))[0],
                             [("t", numpy.uint32), ("kind", "U1"), ("slot", numpy.uint8), (column, numpy.uint64)])
            assert_same(getattr(trace, query)(pc), expected)


def test_defs_by_instance_and_timestamp(toy, trace):
    columns = [("t", numpy.uint32), (None, None), ("slot", numpy.uint8), (None, None), ("def_t", numpy.uint32),
               (None, None), ("def_slot", numpy.uint8), ("def_pc", numpy.uint64)]
    compared = 0
    for pc in pcs_of(trace, "L"):
        times = numpy.unique(trace.values(pc)["t"])
        for instance in (1, 2, len(times)):
            lines = run_wet("def", toy[0], hex(pc), instance)[0]
            # "T L SLOT <- none": no def, which the arrays give as zeros.
            lines = [line.replace("<- none", "<- 0 S 0 0x0") for line in lines]
            expected = parse(lines, columns)
            assert_same(trace.def_(pc, instance=instance), expected)
            assert_same(trace.def_(pc, at=int(times[instance - 1])), expected)
            compared += 1
    assert compared >= 3


def test_slices_and_their_windows(toy, trace):
    columns = [("t", numpy.uint32), ("kind", "U1"), ("pc", numpy.uint64), ("slot", numpy.uint8)]
    for pc in pcs_of(trace, "L") + pcs_of(trace, "S"):
        times = numpy.unique(trace.values(pc)["t"])
        for instance in (1, len(times)):
            whole = trace.slice(pc, instance=instance)
            assert_same({name: whole[name] for name, _ in columns},
                        parse(run_wet("slice", toy[0], hex(pc), instance)[0], columns))
            assert_same(trace.slice(pc, at=int(times[instance - 1])), whole)
        at = int(times[-1])
        window = trace.slice(pc, at=at, from_=at - 1, count=5)
        expected = parse(run_wet("slice", toy[0], hex(pc), "--at=%d" % at, "--from=%d" % (at - 1), "--count=5")[0],
                         columns)
        assert_same({name: window[name] for name, _ in columns}, expected)
        # Walked in parts of 3 rows, other queries between them; --until.
        whole = trace.slice(pc, at=at)
        parts = []
        for part in trace.slice_parts(pc, at=at, rows=3):
            assert 1 <= len(part["t"]) <= 3
            parts.append(part)
            trace.values(pc)
        assert_same({name: numpy.concatenate([part[name] for part in parts]) for name in whole}, whole)
        until = int(whole["t"][len(whole["t"]) // 2])
        expected = parse(run_wet("slice", toy[0], hex(pc), "--at=%d" % at, "--until=%d" % until)[0], columns)
        assert len(expected["t"]) > 0
        window = trace.slice(pc, at=at, until=until)
        assert_same({name: window[name] for name, _ in columns}, expected)

    # A walk outlives no close of its trace: the next part is an Error.
    with tcgen.wet.open(toy[0]) as other:
        pc = pcs_of(other, "L")[0]
        parts = other.slice_parts(pc, at=int(numpy.unique(other.values(pc)["t"])[-1]), rows=1)
        next(parts)
        other.close()
        with pytest.raises(tcgen.Error, match="closed during its slice's walk"):
            next(parts)


def test_shared_wets_query_from_several_threads(toy, trace):
    """Threads each with a share() of one trace answer as the trace alone does."""
    pcs = pcs_of(trace, "L", 8) + pcs_of(trace, "S", 8)

    def answers(wet):
        return [(wet.slice(pc, instance=1), wet.values(pc)) for pc in pcs]

    expected = answers(trace)
    shares = [trace.share() for _ in range(4)]
    results = [None] * len(shares)

    def work(index):
        results[index] = answers(shares[index])

    threads = [threading.Thread(target=work, args=(index,)) for index in range(len(shares))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for result in results:
        assert result is not None
        for (slice_, values), (expected_slice, expected_values) in zip(result, expected):
            assert_same(slice_, expected_slice)
            assert_same(values, expected_values)
    # The trace stays while a share is open.
    trace.close()
    assert_same(shares[0].values(pcs[0]), expected[0][1])
    for share in shares:
        share.close()


def test_errors_are_the_commands(toy, trace):
    path = toy[0]
    load, store = pcs_of(trace, "L")[0], pcs_of(trace, "S")[0]
    instances = len(numpy.unique(trace.values(load)["t"]))
    refusals = [
        (lambda: trace.values(0x1), ("values", path, "0x1")),
        (lambda: trace.addresses(0x1), ("addresses", path, "0x1")),
        (lambda: trace.def_(load, instance=instances + 1), ("def", path, hex(load), instances + 1)),
        (lambda: trace.def_(store, instance=1), ("def", path, hex(store), 1)),
        (lambda: trace.def_(load), ("def", path, hex(load))),
        (lambda: trace.def_(load, instance=0), ("def", path, hex(load), 0)),
        (lambda: trace.def_(load, instance=1, at=2), ("def", path, hex(load), 1, "--at=2")),
        (lambda: trace.slice(load, at=0), ("slice", path, hex(load), "--at=0")),
        (lambda: trace.slice(load, instance=1, from_=0), ("slice", path, hex(load), 1, "--from=0")),
        (lambda: trace.slice(load, instance=1, until=0), ("slice", path, hex(load), 1, "--until=0")),
        (lambda: trace.slice(load, instance=instances + 1), ("slice", path, hex(load), instances + 1)),
        (lambda: trace.slice(0x1, instance=1), ("slice", path, "0x1", 1)),
        (lambda: trace.slice(load, at=10**6), ("slice", path, hex(load), "--at=1000000")),
        (lambda: trace.cf(0, 1), ("cf", path, "--from=0")),
    ]
    for query, arguments in refusals:
        lines, message = run_wet(*arguments)
        assert lines is None, arguments
        with pytest.raises(tcgen.Error) as raised:
            query()
        assert str(raised.value) == message
    assert trace.stats()["executed"] > 0  # still usable after them


def test_truncated_and_missing_files(toy, tmp_path):
    with open(toy[0], "rb") as whole:
        data = whole.read()
    for name, size in (("truncated.wet", len(data) // 2), ("header.wet", 10), ("empty.wet", 0)):
        (tmp_path / name).write_bytes(data[:size])
    for name in ("truncated.wet", "header.wet", "empty.wet", "missing.wet"):
        path = str(tmp_path / name)
        with pytest.raises(tcgen.Error) as raised:
            tcgen.wet.open(path)
        assert str(raised.value) == run_wet("stats", path)[1]
