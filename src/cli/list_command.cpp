#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/options.h"
#include "gputune/error.h"
#include "gputune/json_text.h"
#include "gputune/session.h"

namespace gputune::cli {
namespace {

int run(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune list [options]\n\n"
      "The specs shipped with gputune, with the size of their spaces. Set GPUTUNE_SPACES to\n"
      "add a folder.\n\noptions");
  options.add_options()("json", "write JSON")("help,h", "show this help");
  const auto parsed = parse(args, options, {});
  if (!parsed) return 0;
  nlohmann::json out = nlohmann::json::array();
  for (const ShippedSpec& spec : shipped_spec_list())
    out.push_back(nlohmann::json::parse(spec.json()));
  if (parsed->count("json")) {
    std::cout << json_text(out, 2) << "\n";
    return 0;
  }
  for (const auto& row : out) {
    if (row.contains("error")) {
      std::printf("%-16s (broken: %s)\n", row["name"].get<std::string>().c_str(),
                  row["error"].get<std::string>().c_str());
      continue;
    }
    const bool estimated = row.value("variants_estimated", false);
    std::printf("%-16s %s%6llu variants%s  %s\n", row["name"].get<std::string>().c_str(),
                estimated ? "~" : "",
                static_cast<unsigned long long>(row["variants"].get<uint64_t>()),
                estimated ? " (estimated)" : "", row["description"].get<std::string>().c_str());
  }
  if (out.empty()) std::cerr << "gputune list: no shipped specs found (GPUTUNE_SPACES?)\n";
  return 0;
}

const CommandRegistrar kRegistrar{{"list", "list", "the specs shipped with gputune", 40, run}};

}  // namespace
}  // namespace gputune::cli
