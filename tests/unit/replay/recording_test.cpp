#include "replay/recording.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "gputune/error.h"
#include "support/measurement_fields.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

class RecordingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gputune_recording_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }

  fs::path dir_;
};

TEST_F(RecordingTest, EveryRecordedFieldRoundTrips) {
  Recording recording;
  recording.info.spec_path = "spaces/x.yaml";
  recording.measurements = {testing::every_field_set()};
  const std::string path = (dir_ / "r.csv").string();
  write_recording(recording, path);
  const Recording loaded = load_recording(path);
  ASSERT_EQ(loaded.measurements.size(), 1u);
  testing::expect_fields(recording.measurements[0], loaded.measurements[0],
                         [](const MeasurementField& f) { return f.in_recording; });
}

TEST_F(RecordingTest, CountersFollowTheRowsAndRoundTrip) {
  Recording recording;
  recording.info.spec_path = "spaces/x.yaml";
  recording.measurements = {testing::every_field_set()};
  StoredCounters counters;
  counters.source = "ncu 2025.3.1";
  counters.wall_s = 3.25;
  counters.values = {{"gpu__time_duration.sum", 12345.5}, {"sm__warps_active.avg.pct", 0.1}};
  recording.counters[recording.measurements[0].config_index] = counters;
  recording.counters[7] = counters;
  const std::string path = (dir_ / "r.csv").string();
  write_recording(recording, path);
  EXPECT_NE(read(path).find("\n# counters\nconfig_index,source,profile_s,metric,value\n"),
            std::string::npos);
  const Recording loaded = load_recording(path);
  ASSERT_EQ(loaded.measurements.size(), 1u);
  ASSERT_EQ(loaded.counters.size(), 2u);
  const StoredCounters& back = loaded.counters.at(7);
  EXPECT_EQ(back.source, "ncu 2025.3.1");
  EXPECT_EQ(back.wall_s, 3.25);
  EXPECT_EQ(back.values, counters.values);
}

TEST_F(RecordingTest, ARecordingWithoutCountersHasNone) {
  Recording recording;
  recording.info.spec_path = "spaces/x.yaml";
  recording.measurements = {testing::every_field_set()};
  const std::string path = (dir_ / "r.csv").string();
  write_recording(recording, path);
  EXPECT_EQ(read(path).find("# counters"), std::string::npos);
  EXPECT_TRUE(load_recording(path).counters.empty());
}

TEST_F(RecordingTest, ABrokenCountersSectionNamesItsLine) {
  Recording recording;
  recording.info.spec_path = "spaces/x.yaml";
  const std::string path = (dir_ / "r.csv").string();
  write_recording(recording, path);
  std::ofstream(path, std::ios::app) << "# counters\nconfig_index,source,profile_s,metric,value\n"
                                     << "3,ncu,1.5,gpu__time_duration.sum\n";
  try {
    load_recording(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected 5 counter fields"), std::string::npos)
        << e.what();
  }
}

// The shipped recordings read and write back to the same bytes.
TEST_F(RecordingTest, ShippedRecordingsWriteBackByteForByte) {
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(test::source_dir()) / "db/recordings")) {
    if (entry.path().extension() != ".csv") continue;
    const fs::path copy = dir_ / entry.path().filename();
    write_recording(load_recording(entry.path().string()), copy.string());
    EXPECT_EQ(read(copy), read(entry.path())) << entry.path();
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST_F(RecordingTest, ColumnsAreReadByName) {
  const std::string path = (dir_ / "r.csv").string();
  std::ofstream(path) << "# gputune recording v1\n# spec_path: s.yaml\n"
                      << "status,registers,config_index,samples\n"
                      << "wrong_answer,40,7,1.5;2.5\n";
  const Recording loaded = load_recording(path);
  ASSERT_EQ(loaded.measurements.size(), 1u);
  const Measurement& m = loaded.measurements[0];
  EXPECT_EQ(m.config_index, 7u);
  EXPECT_EQ(m.status, Status::kWrongAnswer);
  EXPECT_EQ(m.registers, 40);
  EXPECT_EQ(m.samples_ms, (std::vector<double>{1.5, 2.5}));
  EXPECT_TRUE(std::isnan(m.compile_ms));  // absent: its `missing` value
  EXPECT_EQ(m.message, "");
}

TEST_F(RecordingTest, UnknownOrRepeatedColumnsAreRefused) {
  const std::string path = (dir_ / "r.csv").string();
  for (const char* columns :
       {"config_index,status,colour", "config_index,status,status", "config,registers"}) {
    std::ofstream(path) << "# gputune recording v1\n# spec_path: s.yaml\n" << columns << "\n";
    try {
      load_recording(path);
      FAIL() << "expected an error for " << columns;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path + ":3: expected the column header"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace gputune
