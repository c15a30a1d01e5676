// A report of a search under check: none says so, in the table and the JSON; one whose check
// the command line changed says how.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "search/report.h"

namespace gputune {
namespace {

Report report_of(bool outputs_checked) {
  Measurement m;
  m.config_index = 0;
  m.config = R"({"B":16})";
  m.status = Status::kOk;
  m.samples_ms = {1.0, 1.0, 1.0};
  Report report = make_report("spec.yaml n=64", DeviceInfo{}, 0, m, {m}, Metrics{});
  report.outputs_checked = outputs_checked;
  return report;
}

TEST(ReportCheckTest, UncheckedOutputsAreSaidLoudly) {
  const Report unchecked = report_of(false);
  const std::string table = format_table(unchecked, 10);
  EXPECT_NE(table.find("WARNING: outputs NOT checked (check: none)"), std::string::npos) << table;
  const nlohmann::json json = nlohmann::json::parse(format_json(unchecked, 10));
  EXPECT_EQ(json.at("outputs_checked"), false);
  EXPECT_NE(json.at("warning").get<std::string>().find("outputs NOT checked"), std::string::npos);
}

TEST(ReportCheckTest, CheckedReportsKeepTheirShape) {
  const Report checked = report_of(true);
  EXPECT_EQ(format_table(checked, 10).find("NOT checked"), std::string::npos);
  const nlohmann::json json = nlohmann::json::parse(format_json(checked, 10));
  EXPECT_FALSE(json.contains("outputs_checked"));
  EXPECT_FALSE(json.contains("warning"));
}

TEST(ReportCheckTest, ACheckChangedFromTheCommandLineIsShown) {
  Report changed = report_of(true);
  changed.check_override = "--check baseline --atol 0.01";
  changed.rtol = 1e-5;
  changed.atol = 0.01;
  const std::string table = format_table(changed, 10);
  EXPECT_NE(table.find("check: --check baseline --atol 0.01 (rtol 1e-05, atol 0.01), not the "
                       "spec's own"),
            std::string::npos)
      << table;
  const nlohmann::json json = nlohmann::json::parse(format_json(changed, 10));
  EXPECT_EQ(json.at("check_override").at("given"), "--check baseline --atol 0.01");
  EXPECT_DOUBLE_EQ(json.at("check_override").at("atol").get<double>(), 0.01);
  EXPECT_FALSE(json.contains("outputs_checked"));

  Report unchecked = report_of(false);
  unchecked.check_override = "--check none";
  EXPECT_NE(format_table(unchecked, 10).find("WARNING: outputs NOT checked (--check none)"),
            std::string::npos);
  const nlohmann::json none = nlohmann::json::parse(format_json(unchecked, 10));
  EXPECT_EQ(none.at("outputs_checked"), false);
  EXPECT_EQ(none.at("check_override").at("given"), "--check none");
  EXPECT_FALSE(none.at("check_override").contains("atol"));
}

}  // namespace
}  // namespace gputune
