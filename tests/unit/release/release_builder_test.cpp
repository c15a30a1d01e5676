#include "release/release_builder.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "compile/cubin_symbols.h"
#include "gputune/error.h"
#include "process/compile_pool.h"
#include "release/release_dump.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "store/store.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "gputune-release-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (fs::path(dir_) / name).string(); }

 private:
  std::string dir_;
};

const char* const kKernel =
    "__global__ void scale(float* x, int n) {\n"
    "  int i = blockIdx.x * B + threadIdx.x;\n"
    "  if (i < n) x[i] = x[i] * U + B;\n"
    "}\n";

const char* const kSpec =
    "description: a kernel for the release builder's tests\n"
    "kernel: {source: scale.cu, name: scale}\n"
    "problem: {n: 1024}\n"
    "arguments:\n"
    "  - {name: x, type: float32, count: n, output: true}\n"
    "  - {name: n, type: int32, value: n}\n"
    "launch:\n"
    "  block: [B]\n"
    "  grid: [ceil(n / B)]\n"
    "parameters:\n"
    "  B: [32, 64, 128, 256]\n"
    "  U: [1, 2]\n"
    "baseline: {B: 32, U: 1}\n";

void write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

DeviceInfo h100() {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.uuid = "GPU-test";
  d.cc_major = 9;
  d.sm_count = 132;
  d.driver_version = 13000;
  return d;
}

// Time per config (B index, U index) at one problem point; the baseline is B=32 U=1.
using Timings = std::map<std::pair<size_t, size_t>, double>;

void store_workload(Store& store, const Spec& spec, double n, const Timings& timings) {
  Problem problem(spec, {{"n", n}});
  const int64_t w = store.workload(workload_key(problem, h100(), "13.0"));
  store.set_baseline(w, problem.baseline_index());
  std::vector<Measurement> measurements;
  for (const auto& [digits, median] : timings) {
    Measurement m;
    m.config_index = problem.space().encode({digits.first, digits.second});
    m.config = problem.space().json(m.config_index);
    m.status = median > 0 ? Status::kOk : Status::kCompileError;
    if (median > 0) m.samples_ms = {median, median, median};  // no spread: 1% noise
    m.registers = 16;
    measurements.push_back(m);
  }
  store.commit(w, measurements);
}

class ReleaseBuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write(dir_.file("spec/scale.cu"), kKernel);
    write(spec_path_, kSpec);
    auto store = open_sqlite_store(db_);
    const Spec spec = load_spec(spec_path_);
    // n=1024: U=2 with B=64 wins by far. n=4096: B=128 and B=256 tie, both well ahead.
    store_workload(*store, spec, 1024, {{{0, 0}, 1.0}, {{1, 1}, 0.5}, {{2, 0}, 0.9}, {{3, 1}, -1}});
    store_workload(*store, spec, 4096,
                   {{{0, 0}, 4.0}, {{2, 0}, 2.0}, {{3, 0}, 2.01}, {{1, 0}, 3.0}});
  }

  ReleaseOptions options() const {
    ReleaseOptions o;
    o.databases = {db_};
    o.embed_code = false;
    o.created_at = "2026-01-01T00:00:00Z";
    return o;
  }

  TempDir dir_;
  std::string spec_path_ = dir_.file("spec/scale.yaml");
  std::string db_ = dir_.file("results.db");
};

TEST_F(ReleaseBuilderTest, KeepsTheBestAndThoseWithinItsNoisePerProblemPoint) {
  const Release r = build_release_model(options(), nullptr);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].name, "scale");
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].toolchain, "13.0");
  EXPECT_EQ(r.devices[0].sm_count, 132);
  const std::string dump = release_dump(r);
  EXPECT_EQ(dump,
            "scale | NVIDIA H100 80GB HBM3 sm_90 132SM nvrtc 13.0 | n=1024 | #0 | B=64 U=2 | "
            "0.500000 ms | spread 0.0% | speedup 2.000x | margin +80.0%\n"
            "scale | NVIDIA H100 80GB HBM3 sm_90 132SM nvrtc 13.0 | n=4096 | #0 | B=128 U=1 | "
            "2.000000 ms | spread 0.0% | speedup 2.000x | margin +0.5%\n"
            "scale | NVIDIA H100 80GB HBM3 sm_90 132SM nvrtc 13.0 | n=4096 | #1 | B=256 U=1 | "
            "2.010000 ms | spread 0.0% | speedup 1.990x | margin -\n");
  // Every ok measurement is an observation; the failed one is not.
  EXPECT_EQ(r.observations.size(), 7u);
  EXPECT_EQ(r.choices[0].problem_json, "{\"n\":1024}");
  EXPECT_EQ(r.configs.at(r.choices[0].config_id - 1).config_json, "{\"B\":64,\"U\":2}");
  EXPECT_NE(r.choices[0].provenance.find(db_), std::string::npos) << r.choices[0].provenance;
  EXPECT_EQ(r.meta.at("format"), "1");
  EXPECT_FALSE(r.meta.at("noise_rule").empty());
}

TEST_F(ReleaseBuilderTest, SpecJsonHasWhatTheRunTimeNeeds) {
  const Release r = build_release_model(options(), nullptr);
  const auto spec = nlohmann::json::parse(r.kernels[0].spec_json);
  EXPECT_EQ(spec["problem"], nlohmann::json::parse(R"({"n":1024})"));
  EXPECT_EQ(spec["parameters"]["B"], nlohmann::json::parse("[32,64,128,256]"));
  EXPECT_EQ(spec["baseline"], nlohmann::json::parse(R"({"B":32,"U":1})"));
  EXPECT_EQ(spec["launch"][0]["grid"][0], "ceil(n / B)");
  EXPECT_EQ(spec["launch"][0]["block"][0], "B");
  EXPECT_EQ(spec["arguments"][0]["count"], "n");
  EXPECT_EQ(spec["arguments"][1]["value"], "n");
  EXPECT_EQ(r.kernels[0].spec_json, spec.dump());  // canonical: keys sorted
}

TEST_F(ReleaseBuilderTest, TheSameInputsGiveTheSameBytes) {
  const std::string a = dir_.file("a.gtrel"), b = dir_.file("b.gtrel");
  write_release_files(build_release_model(options(), nullptr), a, false);
  write_release_files(build_release_model(options(), nullptr), b, false);
  EXPECT_EQ(read(a), read(b));
  EXPECT_EQ(read(a + ".txt"), read(b + ".txt"));
  EXPECT_EQ(release_dump(read_release_db(a)), read(a + ".txt"));
  // Read back, the release is the one written.
  const Release back = read_release_db(a);
  EXPECT_EQ(back.choices.size(), 3u);
  EXPECT_EQ(back.observations.size(), 7u);
  EXPECT_EQ(back.meta.at("created_at"), "2026-01-01T00:00:00Z");
}

TEST_F(ReleaseBuilderTest, RefusesAnExistingOutputUnlessForced) {
  const std::string out = dir_.file("r.gtrel");
  write(out, "precious");
  const Release r = build_release_model(options(), nullptr);
  try {
    write_release_files(r, out, false);
    FAIL() << "an existing output was replaced";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--force"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read(out), "precious");
  write_release_files(r, out, true);
  EXPECT_EQ(read_release_db(out).choices.size(), 3u);
  EXPECT_FALSE(fs::exists(out + ".tmp-" + std::to_string(getpid())));
}

TEST_F(ReleaseBuilderTest, RefusesAKernelSourceThatChangedSinceItWasMeasured) {
  const std::string original = read(dir_.file("spec/scale.cu"));
  write(dir_.file("spec/scale.cu"), original + "// edited\n");
  try {
    build_release_model(options(), nullptr);
    FAIL() << "a changed kernel source was accepted";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("source hash"), std::string::npos) << message;
    EXPECT_NE(message.find("scale.cu"), std::string::npos) << message;
    EXPECT_NE(message.find("--spec"), std::string::npos) << message;
  }
  // The source that was measured, kept elsewhere, is found through --spec.
  write(dir_.file("kept/scale.cu"), original);
  write(dir_.file("kept/scale.yaml"), kSpec);
  ReleaseOptions o = options();
  o.spec_paths = {dir_.file("kept/scale.yaml")};
  EXPECT_EQ(build_release_model(o, nullptr).choices.size(), 3u);
}

TEST_F(ReleaseBuilderTest, RefusesAResultDatabaseOfANewerSchema) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  try {
    build_release_model(options(), nullptr);
    FAIL() << "a newer schema was read";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(db_), std::string::npos) << message;
    EXPECT_NE(message.find("newer gputune"), std::string::npos) << message;
  }
}

TEST_F(ReleaseBuilderTest, AMissingDatabaseIsNamed) {
  ReleaseOptions o = options();
  o.databases = {dir_.file("missing.db")};
  EXPECT_THROW(
      {
        try {
          build_release_model(o, nullptr);
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("missing.db"), std::string::npos);
          throw;
        }
      },
      Error);
}

// Databases made before spec paths were stored absolute keep them as typed: relative to where
// the search ran, most often the database's folder. Release finds the spec there too.
TEST_F(ReleaseBuilderTest, ARelativeStoredSpecPathIsFoundBesideTheDatabase) {
  const std::string db = dir_.file("older.db");
  {
    auto store = open_sqlite_store(db);
    Problem problem(load_spec(spec_path_), {{"n", 1024.0}});
    WorkloadKey key = workload_key(problem, h100(), "13.0");
    key.spec_path = "spec/scale.yaml";  // no such file from the test's own folder
    ASSERT_FALSE(fs::exists(key.spec_path));
    const int64_t w = store->workload(key);
    Measurement m;
    m.config_index = problem.baseline_index();
    m.config = problem.space().json(m.config_index);
    m.samples_ms = {1.0, 1.0, 1.0};
    store->commit(w, {m});
    EXPECT_EQ(store->workloads()[0].key.spec_path, "spec/scale.yaml");
  }
  ReleaseOptions o = options();
  o.databases = {db};
  EXPECT_EQ(build_release_model(o, nullptr).kernels.size(), 1u);
  fs::remove_all(dir_.file("spec"));
  try {
    build_release_model(o, nullptr);
    FAIL() << "a spec that is nowhere was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no longer exists"), std::string::npos) << e.what();
  }
}

TEST_F(ReleaseBuilderTest, OnlyTheKernelsAsked) {
  ReleaseOptions o = options();
  o.kernels = {"transpose"};
  EXPECT_THROW(build_release_model(o, nullptr), Error);
  o.kernels = {"scale"};
  EXPECT_EQ(build_release_model(o, nullptr).kernels.size(), 1u);
}

TEST_F(ReleaseBuilderTest, TopLimitsTheConfigsKeptPerProblemPoint) {
  ReleaseOptions o = options();
  o.top = 1;
  EXPECT_EQ(build_release_model(o, nullptr).choices.size(), 2u);
}

TEST_F(ReleaseBuilderTest, EmbedsACubinPerArchitectureAndPtxForTheLowest) {
  CompilePool pool(1);
  ReleaseOptions o = options();
  o.embed_code = true;
  o.architectures = {"sm_80", "sm_90"};
  std::vector<std::string> said;
  const Release r = build_release_model(o, &pool, [&](const std::string& s) { said.push_back(s); });
  ASSERT_EQ(r.configs.size(), 3u);
  ASSERT_EQ(r.code.size(), 3u * 3u);
  EXPECT_EQ(said.front(), "compiling 3 kept configs for sm_80...");
  for (int64_t config_id = 1; config_id <= 3; ++config_id) {
    std::map<std::string, const ReleaseCode*> targets;
    for (const ReleaseCode& c : r.code) {
      if (c.config_id == config_id) targets[c.target] = &c;
    }
    ASSERT_EQ(targets.size(), 3u);
    for (const char* arch : {"sm_80", "sm_90"}) {
      const ReleaseCode& cubin = *targets.at(arch);
      EXPECT_EQ(cubin.kind, "cubin");
      EXPECT_EQ(cubin.image.substr(0, 4),
                "\x7f"
                "ELF");
      EXPECT_EQ(cubin.entry, "_Z5scalePfi");
      EXPECT_GE(cubin_symbol_bytes(cubin.image, cubin.entry), 0) << arch;
      EXPECT_GT(cubin.registers.value_or(0), 0);
    }
    const ReleaseCode& ptx = *targets.at("compute_80");
    EXPECT_EQ(ptx.kind, "ptx");
    EXPECT_NE(ptx.image.find(".entry _Z5scalePfi"), std::string::npos);
    EXPECT_EQ(ptx.image.back(), '\0');  // cuModuleLoadData takes it as is
  }
  // Each config's code is compiled with its own parameter values.
  auto image = [&](int64_t config_id, const std::string& target) {
    for (const ReleaseCode& c : r.code) {
      if (c.config_id == config_id && c.target == target) return c.image;
    }
    return std::string();
  };
  EXPECT_NE(image(1, "sm_90"), image(2, "sm_90"));
  EXPECT_NE(image(1, "compute_80"), image(2, "compute_80"));
  EXPECT_EQ(r.meta.at("code_targets"), "sm_80,sm_90,compute_80");
}

}  // namespace
}  // namespace gputune
