#include "store/merge.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "gputune/error.h"
#include "store/store.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

DeviceInfo gpu(const std::string& name) {
  DeviceInfo d;
  d.name = name;
  d.uuid = "GPU-" + name;
  d.cc_major = 9;
  d.sm_count = 132;
  d.l2_bytes = 60 << 20;
  d.memory_bytes = int64_t{80} << 30;
  d.driver_version = 13000;
  return d;
}

WorkloadKey key(const std::string& problem, const std::string& device = "NVIDIA H100") {
  WorkloadKey k;
  k.spec_hash = "spec-aaaa";
  k.source_hash = "src-bbbb";
  k.spec_path = "spaces/transpose.yaml";
  k.spec_text = "kernel: {name: transpose}\n";
  k.kernel_name = "transpose";
  k.problem_json = problem;
  k.device = gpu(device);
  k.nvrtc_version = "13.0";
  return k;
}

Measurement measured(uint64_t index, double ms) {
  Measurement m;
  m.config_index = index;
  m.config = R"({"TILE":)" + std::to_string(index) + "}";
  m.samples_ms = {ms, ms * 1.01, ms * 0.99};
  return m;
}

Measurement failure(uint64_t index) {
  Measurement m;
  m.config_index = index;
  m.config = R"({"TILE":)" + std::to_string(index) + "}";
  m.status = Status::kCompileError;
  m.message = "error: too many resources";
  return m;
}

class MergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gputune_merge_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

// Every row of every table, for comparing whole databases.
std::string dump(const std::string& path) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  std::string out;
  sqlite3_stmt* tables = nullptr;
  sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", -1,
                     &tables, nullptr);
  while (sqlite3_step(tables) == SQLITE_ROW) {
    const std::string table = reinterpret_cast<const char*>(sqlite3_column_text(tables, 0));
    out += "## " + table + "\n";
    sqlite3_stmt* rows = nullptr;
    sqlite3_prepare_v2(db, ("SELECT * FROM " + table + " ORDER BY rowid").c_str(), -1, &rows,
                       nullptr);
    while (sqlite3_step(rows) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(rows); ++c) {
        const unsigned char* text = sqlite3_column_text(rows, c);
        out += (c ? "|" : "") + std::string(text ? reinterpret_cast<const char*>(text) : "NULL");
      }
      out += "\n";
    }
    sqlite3_finalize(rows);
  }
  sqlite3_finalize(tables);
  sqlite3_close(db);
  return out;
}

std::vector<Measurement> counting(const std::string& path, const WorkloadKey& k) {
  auto store = open_sqlite_store(path, true);
  for (const WorkloadSummary& w : store->workloads()) {
    if (w.key.problem_json == k.problem_json && w.key.device.key() == k.device.key()) {
      return store->measured(w.id);
    }
  }
  return {};
}

TEST_F(MergeTest, CopiesEverythingIntoANewFileWithItsOrigin) {
  {
    auto a = open_sqlite_store(file("a.db"));
    const int64_t w = a->workload(key(R"({"n":4096})"));
    a->set_baseline(w, 1);
    a->commit(w, {measured(1, 2.0), measured(2, 1.0), failure(3)});
    a->record_search(w, SearchRecord{"brute_force", 7, 3, 0});
  }
  const MergeCounts counts = merge_database(file("out.db"), file("a.db"));
  EXPECT_EQ(counts.workloads_added, 1);
  EXPECT_EQ(counts.variants_added, 3);
  EXPECT_EQ(counts.attempts_copied, 3);
  EXPECT_EQ(counts.searches_copied, 1);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  EXPECT_EQ(counts.host, host);

  auto out = open_sqlite_store(file("out.db"), true);
  ASSERT_EQ(out->workloads().size(), 1u);
  const WorkloadSummary w = out->workloads().front();
  EXPECT_EQ(w.baseline_index, 1u);
  ASSERT_TRUE(w.best);
  EXPECT_EQ(w.best->config_index, 2u);
  EXPECT_EQ(out->measured(w.id).size(), 3u);
  const std::string rows = dump(file("out.db"));
  EXPECT_NE(rows.find(fs::absolute(file("a.db")).lexically_normal().string()), std::string::npos)
      << rows;
}

TEST_F(MergeTest, TheLowerMedianCountsAndTheOtherStaysAsAnAttempt) {
  const WorkloadKey k = key(R"({"n":4096})");
  {
    auto a = open_sqlite_store(file("a.db"));
    a->commit(a->workload(k), {measured(1, 2.0), measured(2, 1.0), failure(3)});
    auto b = open_sqlite_store(file("b.db"));
    b->commit(b->workload(k), {measured(1, 1.5), measured(2, 3.0), measured(3, 4.0)});
  }
  merge_database(file("out.db"), file("a.db"));
  const MergeCounts counts = merge_database(file("out.db"), file("b.db"));
  EXPECT_EQ(counts.replaced, 2);  // config 1 is faster in b; config 3 failed in a
  EXPECT_EQ(counts.kept, 1);      // config 2 is faster in a
  const std::vector<Measurement> m = counting(file("out.db"), k);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_DOUBLE_EQ(m[0].median_ms(), 1.5);
  EXPECT_DOUBLE_EQ(m[1].median_ms(), 1.0);
  EXPECT_EQ(m[2].status, Status::kOk);
  EXPECT_DOUBLE_EQ(m[2].median_ms(), 4.0);

  // The other order gives the same measurements that count.
  merge_database(file("other.db"), file("b.db"));
  merge_database(file("other.db"), file("a.db"));
  const std::vector<Measurement> n = counting(file("other.db"), k);
  ASSERT_EQ(n.size(), 3u);
  for (size_t i = 0; i < n.size(); ++i) EXPECT_EQ(n[i].median_ms(), m[i].median_ms()) << i;
}

TEST_F(MergeTest, DifferentGpusStayDifferentWorkloads) {
  {
    auto a = open_sqlite_store(file("a.db"));
    a->commit(a->workload(key(R"({"n":4096})", "NVIDIA H100")), {measured(1, 2.0)});
    auto b = open_sqlite_store(file("b.db"));
    b->commit(b->workload(key(R"({"n":4096})", "NVIDIA A100")), {measured(1, 3.0)});
  }
  merge_database(file("out.db"), file("a.db"));
  merge_database(file("out.db"), file("b.db"));
  EXPECT_EQ(open_sqlite_store(file("out.db"), true)->workloads().size(), 2u);
}

// Property: for random databases, merging any of them again, in any order, changes no row.
TEST_F(MergeTest, MergingAgainChangesNothing) {
  std::mt19937_64 random(42);
  for (int trial = 0; trial < 20; ++trial) {
    const std::string out = file("out" + std::to_string(trial) + ".db");
    std::vector<std::string> inputs;
    for (int i = 0; i < 3; ++i) {
      inputs.push_back(file("in" + std::to_string(trial) + "_" + std::to_string(i) + ".db"));
      auto store = open_sqlite_store(inputs.back());
      for (const char* problem : {R"({"n":1024})", R"({"n":2048})"}) {
        if (random() % 3 == 0) continue;
        const int64_t w = store->workload(key(problem));
        for (int commits = 1 + random() % 3; commits > 0; --commits) {
          std::vector<Measurement> batch;
          for (uint64_t index = 0; index < 6; ++index) {
            if (random() % 2) continue;
            batch.push_back(random() % 5 == 0 ? failure(index)
                                              : measured(index, 1.0 + random() % 4));
          }
          store->commit(w, batch);
        }
        if (random() % 2)
          store->record_search(w, SearchRecord{"random", static_cast<uint64_t>(trial), 6, 0});
      }
    }
    // One input is itself a merge, so rows travel through two files.
    merge_database(inputs[2], inputs[0]);
    for (const std::string& input : inputs) merge_database(out, input);
    const std::string once = dump(out);
    for (int i = 2; i >= 0; --i) {
      EXPECT_FALSE(merge_database(out, inputs[i]).changed()) << trial << " " << i;
    }
    merge_database(out, inputs[1]);
    EXPECT_EQ(dump(out), once) << "trial " << trial;
  }
}

TEST_F(MergeTest, ProvenanceSurvivesASecondMerge) {
  {
    auto a = open_sqlite_store(file("a.db"));
    a->commit(a->workload(key(R"({"n":4096})")), {measured(1, 2.0)});
  }
  merge_database(file("b.db"), file("a.db"));
  merge_database(file("c.db"), file("b.db"));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(file("c.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT o.path, m.origin_row FROM measurements m "
                     "JOIN origins o ON o.id = m.origin_id",
                     -1, &s, nullptr);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 0))),
            fs::absolute(file("a.db")).lexically_normal().string());
  EXPECT_EQ(sqlite3_column_int64(s, 1), 1);
  sqlite3_finalize(s);
  sqlite3_close(db);
}

TEST_F(MergeTest, RefusesANewerSchemaTheOutputItselfAndAMissingFile) {
  {
    auto a = open_sqlite_store(file("a.db"));
    a->commit(a->workload(key(R"({"n":4096})")), {measured(1, 2.0)});
  }
  sqlite3* db = nullptr;
  sqlite3_open(file("a.db").c_str(), &db);
  sqlite3_exec(db, "PRAGMA user_version = 999", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  try {
    merge_database(file("out.db"), file("a.db"));
    FAIL() << "merged a newer schema";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("newer gputune"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("a.db"), std::string::npos) << e.what();
  }
  open_sqlite_store(file("b.db"));
  EXPECT_THROW(merge_database(file("b.db"), file("b.db")), Error);
  try {
    merge_database(file("out.db"), file("missing.db"));
    FAIL() << "merged a missing file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.db"), std::string::npos) << e.what();
  }
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

int64_t number(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr);
  const int64_t out = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
  sqlite3_finalize(s);
  return out;
}

// An input is only read (merge's help says so), also one of an older schema: it was upgraded
// in place. Schema 6 is schema 7 without what migration 7 added.
TEST_F(MergeTest, AnInputOfAnOlderSchemaIsOnlyRead) {
  {
    auto a = open_sqlite_store(file("old.db"));
    const int64_t w = a->workload(key(R"({"n":4096})"));
    a->commit(w, {measured(1, 2.0), measured(2, 1.0)});
    a->record_search(w, SearchRecord{"brute_force", 7, 2, 0});
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file("old.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "PRAGMA journal_mode = DELETE; DROP TABLE origins; DROP TABLE identity; "
                         "ALTER TABLE measurements DROP COLUMN origin_id; "
                         "ALTER TABLE measurements DROP COLUMN origin_row; "
                         "ALTER TABLE searches DROP COLUMN origin_id; "
                         "ALTER TABLE searches DROP COLUMN origin_row; PRAGMA user_version = 6",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
  const std::string before = bytes_of(file("old.db"));

  const MergeCounts counts = merge_database(file("out.db"), file("old.db"));
  EXPECT_EQ(counts.workloads_added, 1);
  EXPECT_EQ(counts.attempts_copied, 2);
  EXPECT_EQ(counts.searches_copied, 1);
  EXPECT_EQ(bytes_of(file("old.db")), before) << "the input was written";
  EXPECT_FALSE(fs::exists(file("old.db-wal")));
  ASSERT_EQ(sqlite3_open_v2(file("old.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  EXPECT_EQ(number(db, "PRAGMA user_version"), 6);
  sqlite3_close(db);
  // The provenance names the input, not the copy it was upgraded in.
  EXPECT_NE(dump(file("out.db")).find(fs::absolute(file("old.db")).lexically_normal().string()),
            std::string::npos);
  EXPECT_EQ(counting(file("out.db"), key(R"({"n":4096})")).size(), 2u);
}

// A damaged input was merged as "success" with nothing copied: a table page whose cells SQLite
// no longer sees reads as an empty table. Its damage is named and nothing is merged.
TEST_F(MergeTest, ADamagedInputIsRefusedAndNothingIsMerged) {
  {
    auto a = open_sqlite_store(file("a.db"));
    a->commit(a->workload(key(R"({"n":4096})")), {measured(1, 2.0)});
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file("a.db").c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "PRAGMA journal_mode = DELETE", nullptr, nullptr, nullptr);
  const int64_t page_size = number(db, "PRAGMA page_size");
  const int64_t root = number(db, "SELECT rootpage FROM sqlite_master WHERE name = 'workloads'");
  sqlite3_close(db);
  ASSERT_GT(root, 1);
  {
    // The root page of workloads is a leaf (one row): its cell count (bytes 3-4) set to 0.
    std::fstream f(file("a.db"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekg((root - 1) * page_size);
    char type = 0;
    f.read(&type, 1);
    ASSERT_EQ(type, 0x0D);
    f.seekp((root - 1) * page_size + 3);
    f.write("\0\0", 2);
  }
  open_sqlite_store(file("out.db"));
  const std::string before = dump(file("out.db"));
  try {
    merge_database(file("out.db"), file("a.db"));
    FAIL() << "merged a damaged database";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kDb);
    EXPECT_NE(std::string(e.what()).find(file("a.db") + ": is damaged"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(dump(file("out.db")), before);
}

// Rows gputune never writes (another program's, a hand edit's) are refused by name before
// anything is merged: a negative time ranked as the best, a config of another type stopped
// every later read of the merged file.
TEST_F(MergeTest, RowsGputuneNeverWritesAreRefusedAndNothingIsMerged) {
  const struct {
    const char* sql;
    const char* said;
  } kCases[] = {
      {"UPDATE measurements SET median_ms = -1 WHERE id = 1",
       ": measurement 1 does not hold a median time that is a positive number"},
      {"UPDATE measurements SET samples_json = '[0.5, -2]' WHERE id = 2",
       ": measurement 2 does not hold samples that are a JSON array of positive numbers"},
      {"UPDATE measurements SET samples_json = 'x' WHERE id = 1",
       ": measurement 1 does not hold samples"},
      {"UPDATE variants SET config_json = '[1]' WHERE id = 2",
       ": variant 2 does not hold a config that is a JSON object"},
      {"UPDATE workloads SET problem_json = '{' WHERE id = 1",
       ": workload 1 does not hold problem values that are a JSON object"},
  };
  for (const auto& c : kCases) {
    fs::remove(file("a.db"));
    fs::remove(file("out.db"));
    {
      auto a = open_sqlite_store(file("a.db"));
      a->commit(a->workload(key(R"({"n":4096})")), {measured(1, 2.0), measured(2, 3.0)});
    }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(file("a.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, c.sql, nullptr, nullptr, nullptr), SQLITE_OK) << c.sql;
    sqlite3_close(db);
    open_sqlite_store(file("out.db"));
    const std::string before = dump(file("out.db"));
    try {
      merge_database(file("out.db"), file("a.db"));
      ADD_FAILURE() << "merged: " << c.sql;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kDb);
      EXPECT_NE(std::string(e.what()).find(file("a.db") + c.said), std::string::npos) << e.what();
    }
    EXPECT_EQ(dump(file("out.db")), before) << c.sql;
  }
  // Samples of NaN (stored as null) are what gputune writes for a time it could not take.
  fs::remove(file("a.db"));
  fs::remove(file("out.db"));
  {
    auto a = open_sqlite_store(file("a.db"));
    Measurement m = measured(1, 2.0);
    m.samples_ms.push_back(std::nan(""));
    a->commit(a->workload(key(R"({"n":4096})")), {m});
  }
  EXPECT_NO_THROW(merge_database(file("out.db"), file("a.db")));
}

}  // namespace
}  // namespace gputune
