#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus (tests/fuzz/corpus/<target>/): valid files and broken
ones, among them the inputs that crashed gputune before (issue 27). Run from anywhere; the
output is kept in the repository, so run it again only to change the seeds."""
import os
import shutil
import sqlite3
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, "corpus")


def put(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(folder, name), mode) as f:
        f.write(data)


def read(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def spec_yaml():
    for name in sorted(os.listdir(os.path.join(ROOT, "spaces"))):
        put("spec_yaml", name, read("spaces/" + name))
    # The engine's knobs (thread merge, unroll, padding): kernels beside the bench's specs.
    for name in ("matmul.yaml", "tiled_transpose.yaml"):
        text = read("bench/engine/" + name)
        put("spec_yaml", "engine_" + name, text.replace("{source: ", "{source: ../bench/engine/", 1))
    transpose = read("spaces/transpose.yaml")
    put("spec_yaml", "broken_unclosed.yaml", "kernel: [unclosed\n")
    put("spec_yaml", "broken_deep.yaml", "a: " + "[" * 3000 + "\n")
    put("spec_yaml", "broken_types.yaml", transpose.replace("n: 8192", "n: [1, 2]"))
    put("spec_yaml", "huge_number.yaml", transpose.replace("n: 8192", "n: 1e999"))
    put("spec_yaml", "not_utf8.yaml", transpose.encode().replace(b"SHARED: [0, 1]", b"SHARED: [0\x97, 1]"))
    put("spec_yaml", "huge_space.yaml",
        "kernel: {source: ../kernels/transpose.cu, name: transpose}\nproblem: {n: 64}\n"
        "arguments:\n  - {name: out, type: float32, count: n * n, output: true}\n"
        "  - {name: in, type: float32, count: n * n}\n  - {name: n, type: int32, value: n}\n"
        "launch: {block: [8, 8], grid: [1, 1]}\n"
        "parameters: {A: [%s], B: [%s], C: [%s], D: [%s]}\n" % ((", ".join(map(str, range(1, 200))),) * 4))


def t1():
    for name in ("scaled_sum.json", "weighted_sum.json"):
        put("t1", name, read("tests/formats/" + name))
    text = read("tests/formats/scaled_sum.json")
    put("t1", "spaces_after_problem_size.json",
        text.replace('"ProblemSize[0] / TILE"', '"ProblemSize' + " " * 30000 + '[0] / TILE"'))
    put("t1", "number_overflow.json", text.replace("65536", "1e999"))
    put("t1", "python_overflow.json", text.replace('"ProblemSize[0] / TILE"', '"10**400"'))
    put("t1", "not_an_object.json", "[1, 2, 3]")
    put("t1", "broken.json", text[: len(text) // 2])


def set_texts():
    for i, text in enumerate(["n=4096", "n=2*1024", "n=4096,n=max(1, 2)", "n=1e999", "n=-1",
                              "x=1", "n==2", "n=" + "9" * 400, "n=1," + "a" * 40000 + "=2",
                              "n=1\0n=2", "n=(((((1)))))", "n=1 in [1, 2]"]):
        put("set", "set_%02d" % i, text)


def npy(descr, raw, count, fortran=False, gap=" ", version=1):
    header = ("{'descr': '%s',%s'fortran_order': %s,%s'shape': (%d,), }"
              % (descr, gap, "True" if fortran else "False", gap, count))
    width = 2 if version == 1 else 4
    while (8 + width + len(header) + 1) % 64:
        header += " "
    header += "\n"
    length = struct.pack("<H" if version == 1 else "<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + length + header.encode() + raw


def npy_files():
    floats = struct.pack("<3f", 1.5, -2.0, 3.0)
    put("npy", "float32.npy", b"\x00" + npy("<f4", floats, 3))
    put("npy", "float64_big_endian.npy", b"\x01" + npy(">f8", struct.pack(">2d", 1, 2), 2))
    put("npy", "int32_v2.npy", b"\x02" + npy("<i4", struct.pack("<2i", 1, 2), 2, version=2))
    put("npy", "fortran.npy", b"\x00" + npy("<f4", floats, 3, fortran=True))
    put("npy", "long_header.npy", b"\x00" + npy("<f4", floats, 3, gap=" " * 30000))
    put("npy", "truncated.npy", b"\x00" + npy("<f4", floats, 3)[:20])
    put("npy", "no_magic.npy", b"\x00not numpy at all")


def recordings():
    lines = read("db/recordings/transpose_n_4096_NVIDIA_H200.csv").splitlines(True)
    small = "".join(lines[:40])
    put("recording", "transpose.csv", small)
    put("recording", "negative_sample.csv", small.replace(",ok,0.13", ",ok,-0.13", 1)
        .replace(";0.13", ";-0.13", 1))
    put("recording", "no_hashes.csv", "".join(
        l for l in lines[:40] if not l.startswith(("# spec_hash", "# measurement_hash"))))
    put("recording", "huge_numbers.csv", small.replace("sm_count: 132", "sm_count: 99999999999999999999"))
    put("recording", "counters.csv",
        small + "# counters\nconfig_index,source,profile_s,metric,value\n0,ncu,1.5,dram__bytes,1e9\n")
    put("recording", "not_a_recording.csv", "config_index,status\n1,ok\n")
    put("recording", "not_utf8.csv", small.encode().replace(b"# gpu: NVIDIA", b"# gpu: NV\xffIDIA"))


def kernel_tuner():
    text = read("tests/formats/kt_cache.json")
    put("kernel_tuner", "kt_cache.json", text)
    put("kernel_tuner", "store_results.json",
        '{"NVIDIA-H100": {"65536": [{"block_size_x": 64, "TILE": 2, "time": 0.02}]}}')
    put("kernel_tuner", "number_overflow.json", text.replace('"time": 0.051', '"time": 1e999'))
    put("kernel_tuner", "negative_time.json", text.replace('"time": 0.051', '"time": -0.051'))
    put("kernel_tuner", "wrong_types.json",
        text.replace('"compile_time": 310.2', '"compile_time": "slow"')
        .replace('"device_name": "NVIDIA A100-PCIE-40GB"', '"device_name": 7'))
    put("kernel_tuner", "other_kernel.json", text.replace('"scaled_sum"', '"other"'))


TRANSPOSE_SPEC = ('{"problem": {"n": 8192}, "kernel": "transpose", '
                  '"parameters": {"TILE": [16, 32, 64], "VEC": [1, 2, 4], "MERGE_Y": [1, 2, 4, 8]}, '
                  '"constraints": ["TILE % MERGE_Y == 0"], '
                  '"launch": [{"kernel": "transpose", "block": ["TILE / VEC", "TILE / MERGE_Y"], '
                  '"grid": ["ceil(n / TILE)", "ceil(n / TILE)"]}], '
                  '"baseline": {"TILE": 32, "VEC": 1, "MERGE_Y": 1}}')


def release(name, spec_json=TRANSPOSE_SPEC, problem='{"n":4096}', config='{"MERGE_Y":4,"TILE":64,"VEC":4}',
            observation_problem='{"n":2048}', override=None, application_id=0x47545245):
    path = os.path.join(CORPUS, "release", name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript("""
PRAGMA page_size = 512; PRAGMA journal_mode = OFF; PRAGMA application_id = %d; PRAGMA user_version = 1;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE kernels (id INTEGER PRIMARY KEY, name TEXT NOT NULL, source_hash TEXT NOT NULL,
  space_hash TEXT NOT NULL, spec_json TEXT NOT NULL);
CREATE TABLE devices (id INTEGER PRIMARY KEY, name TEXT NOT NULL, cc_major INTEGER NOT NULL,
  cc_minor INTEGER NOT NULL, sm_count INTEGER NOT NULL, toolchain TEXT NOT NULL);
CREATE TABLE configs (id INTEGER PRIMARY KEY, kernel_id INTEGER NOT NULL, config_json TEXT NOT NULL,
  is_baseline INTEGER NOT NULL);
CREATE TABLE choices (kernel_id INTEGER NOT NULL, device_id INTEGER NOT NULL, problem_json TEXT NOT NULL,
  rank INTEGER NOT NULL, config_id INTEGER NOT NULL, median_ms REAL NOT NULL, spread REAL NOT NULL,
  speedup_over_baseline REAL, margin_to_runner_up REAL, registers INTEGER NOT NULL,
  shared_bytes INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE observations (kernel_id INTEGER NOT NULL, device_id INTEGER NOT NULL,
  problem_json TEXT NOT NULL, config_json TEXT NOT NULL, median_ms REAL NOT NULL);
CREATE TABLE code (config_id INTEGER NOT NULL, target TEXT NOT NULL, kind TEXT NOT NULL,
  entry TEXT NOT NULL, image BLOB NOT NULL, registers INTEGER, shared_bytes INTEGER);
CREATE TABLE overrides (kernel TEXT NOT NULL, device_name TEXT NOT NULL, problem_json TEXT NOT NULL,
  config_json TEXT NOT NULL);
""" % application_id)
    db.execute("INSERT INTO meta VALUES ('format', '1')")
    db.execute("INSERT INTO kernels VALUES (1, 'transpose', 'source-1', 'space-1', ?)", (spec_json,))
    db.execute("INSERT INTO devices VALUES (1, 'NVIDIA H100 80GB HBM3', 9, 0, 132, '13.0')")
    db.execute("INSERT INTO devices VALUES (2, 'NVIDIA H200', 9, 0, 132, '13.0')")
    db.execute("INSERT INTO configs VALUES (1, 1, '{\"MERGE_Y\":1,\"TILE\":32,\"VEC\":1}', 1)")
    db.execute("INSERT INTO configs VALUES (2, 1, ?, 0)", (config,))
    for device in (1, 2):
        db.execute("INSERT INTO choices VALUES (1, ?, ?, 0, 2, 0.1, 0.01, 2.0, 0.05, 32, 0, 'p')",
                   (device, problem))
        db.execute("INSERT INTO choices VALUES (1, ?, ?, 1, 1, 0.2, 0.01, 1.0, NULL, 32, 0, 'p')",
                   (device, problem))
    for i, value in enumerate((1024, 2048, 4096, 8192)):
        db.execute("INSERT INTO observations VALUES (1, 1, ?, ?, ?)",
                   ('{"n":%d}' % value if observation_problem == '{"n":2048}' else observation_problem,
                    config, 0.01 * (i + 1)))
    db.execute("INSERT INTO code VALUES (2, 'compute_90', 'ptx', 'transpose', X'2e76657273696f6e00', NULL, NULL)")
    if override:
        db.execute("INSERT INTO overrides VALUES ('transpose', '*', '*', ?)", (override,))
    db.commit()
    db.close()


def releases():
    release("valid.gtrel")
    release("problem_not_an_object.gtrel", problem="[4096]", observation_problem="7")
    release("kernel_not_a_string.gtrel", spec_json=TRANSPOSE_SPEC.replace(
        '"kernel": "transpose", "block"', '"kernel": 7, "block"'))
    release("spec_json_garbage.gtrel", spec_json='{"problem": 1e999, "parameters": []}')
    release("config_not_in_space.gtrel", config='{"TILE":"x","EVIL":1}',
            override='{"TILE": 1e999}')
    release("foreign.gtrel", application_id=0)
    with open(os.path.join(CORPUS, "release", "valid.gtrel"), "rb") as f:
        data = f.read()
    put("release", "truncated.gtrel", data[: len(data) // 3])
    put("release", "not_sqlite.gtrel", b"SQLite format 3\0" + b"\xff" * 200)


if __name__ == "__main__":
    if os.path.isdir(CORPUS):
        shutil.rmtree(CORPUS)
    spec_yaml()
    t1()
    set_texts()
    npy_files()
    recordings()
    kernel_tuner()
    releases()
