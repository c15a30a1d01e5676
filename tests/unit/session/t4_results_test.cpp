// T4 export, validated against the published schema (tests/formats/t4-results-schema.json).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "gputune/session.h"
#include "test_paths.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

bool has_type(const json& value, const std::string& type) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "number") return value.is_number();
  if (type == "integer") return value.is_number_integer();
  if (type == "boolean") return value.is_boolean();
  if (type == "null") return value.is_null();
  ADD_FAILURE() << "the validator does not know type " << type;
  return false;
}

// The schema keywords the T4 schema uses: type, properties, required, items, enum, pattern.
void validate(const json& value, const json& schema, const std::string& where,
              std::vector<std::string>* errors) {
  if (schema.contains("type")) {
    const json& type = schema.at("type");
    bool any = false;
    for (const json& t : type.is_array() ? type : json::array({type})) {
      any = any || has_type(value, t.get<std::string>());
    }
    if (!any) errors->push_back(where + ": " + value.dump() + " is not " + type.dump());
  }
  if (schema.contains("enum")) {
    bool found = false;
    for (const json& option : schema.at("enum")) found = found || option == value;
    if (!found) errors->push_back(where + ": " + value.dump() + " is not in the enum");
  }
  if (schema.contains("pattern") && value.is_string() &&
      !std::regex_search(value.get<std::string>(),
                         std::regex(schema.at("pattern").get<std::string>()))) {
    errors->push_back(where + ": " + value.dump() + " does not match the pattern");
  }
  if (value.is_object()) {
    for (const json& name : schema.value("required", json::array())) {
      if (!value.contains(name.get<std::string>())) {
        errors->push_back(where + ": lacks required " + name.get<std::string>());
      }
    }
    for (const auto& [name, sub] : schema.value("properties", json::object()).items()) {
      if (value.contains(name)) validate(value.at(name), sub, where + "/" + name, errors);
    }
  }
  if (value.is_array() && schema.contains("items")) {
    for (size_t i = 0; i < value.size(); ++i) {
      validate(value[i], schema.at("items"), where + "/" + std::to_string(i), errors);
    }
  }
}

TEST(T4Results, ValidAgainstThePublishedSchema) {
  const fs::path dir = fs::temp_directory_path() / ("gputune_t4_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string db = (dir / "t4.db").string();
  const std::string formats = test::source_dir() + "/tests/formats/";
  const Spec spec = open_spec(formats + "scaled_sum.json");
  const PriorImport imported = import_kernel_tuner(formats + "kt_cache.json", spec, db);

  const json results = json::parse(t4_results(db, imported.workload));
  std::ifstream schema_file(formats + "t4-results-schema.json");
  const json schema = json::parse(schema_file);
  std::vector<std::string> errors;
  validate(results, schema, "", &errors);
  EXPECT_TRUE(errors.empty()) << errors.front();

  EXPECT_EQ(results.at("schema_version"), "1.0.0");
  ASSERT_EQ(results.at("results").size(), 4u);
  std::map<std::string, int> invalidity;
  for (const json& r : results.at("results")) {
    ++invalidity[r.at("invalidity").get<std::string>()];
    if (r.at("configuration") == json{{"block_size_x", 32}, {"TILE", 1}}) {
      EXPECT_EQ(r.at("times").at("runtimes"), json({0.050, 0.051, 0.053}));
      EXPECT_EQ(r.at("correctness"), 1);
      EXPECT_EQ(r.at("measurements")[0].at("name"), "time");
      EXPECT_DOUBLE_EQ(r.at("measurements")[0].at("value").get<double>(), 0.051);
    }
  }
  EXPECT_EQ(invalidity["correct"], 3);
  EXPECT_EQ(invalidity["compile"], 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gputune
