#include "analysis/ncu_csv.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gputune/error.h"
#include "test_paths.h"

namespace gputune {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(test::source_dir() + "/tests/fixtures/ncu/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

KernelCounters only_kernel(const std::string& name) {
  const auto kernels = parse_ncu_raw_csv(fixture(name), name);
  EXPECT_EQ(kernels.size(), 1u);
  return kernels.at(0);
}

TEST(NcuCsv, ReadsThousandsSeparatorsAndPrefixedUnits) {
  const KernelCounters copy = only_kernel("copy.raw.csv");
  EXPECT_EQ(copy.kernel, "copy");
  EXPECT_DOUBLE_EQ(copy.values.at("launch__grid_size"), 262144);       // "262,144"
  EXPECT_DOUBLE_EQ(copy.values.at("gpu__time_duration.sum"), 704288);  // 704.288 us, in ns
  EXPECT_EQ(copy.units.at("gpu__time_duration.sum"), "ns");
  EXPECT_NEAR(copy.values.at("dram__bytes.sum.per_second"), 3.021066e12, 1e6);  // Tbyte/s
  EXPECT_EQ(copy.units.at("dram__bytes.sum.per_second"), "byte/s");
  EXPECT_EQ(copy.text.at("launch__func_cache_config"), "CachePreferNone");
  EXPECT_EQ(copy.text.at("Block Size"), "(256, 1, 1)");
}

TEST(NcuCsv, EmptyCellsAreLeftOut) {
  const KernelCounters copy = only_kernel("copy.raw.csv");
  EXPECT_EQ(copy.values.count(
                "FBSP.TriageCompute.dramc__read_throughput.avg.pct_of_peak_sustained_elapsed"),
            0u);
}

TEST(NcuCsv, DisplayAndBaseUnitsAgree) {
  const KernelCounters shown = only_kernel("sgemm_naive.raw.csv");
  const KernelCounters base = only_kernel("sgemm_naive.raw-base.csv");
  for (const char* metric : {"gpu__time_duration.sum", "dram__bytes.sum.per_second",
                             "launch__shared_mem_per_block", "smsp__inst_executed.sum"}) {
    SCOPED_TRACE(metric);
    EXPECT_NEAR(shown.values.at(metric), base.values.at(metric),
                1e-3 * std::abs(base.values.at(metric)));
    EXPECT_EQ(shown.units.at(metric), base.units.at(metric));
  }
}

TEST(NcuCsv, SkipsProfilerAndProgramLinesAroundTheTable) {
  const auto kernels =
      parse_ncu_raw_csv(fixture("transpose_metrics_stdout.csv"), "transpose_metrics_stdout.csv");
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].kernel.rfind("transpose", 0), 0u);
  EXPECT_NEAR(kernels[0].values.at("dram__throughput.avg.pct_of_peak_sustained_elapsed"), 50.6, 1);
  EXPECT_DOUBLE_EQ(kernels[0].values.at("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
                   65929397);
}

TEST(NcuCsv, NotAvailableCellsAreLeftOut) {
  // Synthetic: no captured cell was n/a.
  const std::string text =
      "==PROF== Connected to process 1\n"
      "\"ID\",\"Kernel Name\",\"a.sum\",\"b.pct\"\n"
      "\"\",\"\",\"\",\"%\"\n"
      "\"0\",\"k\",\"n/a\",\"1,234.5\"\n"
      "==PROF== Disconnected from process 1\n";
  const auto kernels = parse_ncu_raw_csv(text);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].values.count("a.sum"), 0u);
  EXPECT_DOUBLE_EQ(kernels[0].values.at("b.pct"), 1234.5);
}

TEST(NcuCsv, NoHeaderIsAnErrorThatSaysWhatWasExpected) {
  try {
    parse_ncu_raw_csv("==ERROR== ERR_NVGPUCTRPERM\n", "ncu's output");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ncu's output: no CSV header"), std::string::npos);
  }
}

TEST(NcuCsv, ARowOfTheWrongWidthNamesItsLine) {
  try {
    parse_ncu_raw_csv("\"ID\",\"x\"\n\"\",\"\"\n\"0\"\n", "out.csv");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("out.csv:3:"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gputune
