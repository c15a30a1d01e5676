#include <sysexits.h>
#include <iostream>
#include <optional>

#include "cli/command.h"
#include "cli/options.h"
#include "gputune/error.h"
#include "gputune/session.h"

namespace gputune::cli {
namespace {

int run(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune export [options]\n\n"
      "Writes every workload of a database (or one) as a text recording: metadata lines, then\n"
      "one CSV row per variant with its status, samples, compile time and resources. A\n"
      "recording replays with `gputune search --replay FILE`, on any machine.\n\noptions");
  auto add = options.add_options();
  add("db", po::value<std::string>()->default_value("gputune.db"), "database file");
  add("out", po::value<std::string>()->default_value("."), "folder the recordings go to");
  add("workload", po::value<int64_t>(), "only this workload (see gputune show)");
  add("commit", po::value<std::string>()->default_value(""), "gputune commit to record");
  add("help,h", "show this help");
  Parsed parsed = parse(args, options, {});
  if (parsed.help) {
    std::cout << options;
    return 0;
  }
  const auto& vm = parsed.vm;
  std::string db = vm["db"].as<std::string>();
  std::optional<int64_t> workload;
  if (vm.count("workload")) workload = vm["workload"].as<int64_t>();
  const auto written =
      export_recordings(db, vm["out"].as<std::string>(), workload, vm["commit"].as<std::string>());
  for (const auto& [path, w] : written) {
    std::cout << path << ": " << w.attempts << " attempts, " << w.ok << " ok\n";
  }
  if (written.empty()) {
    std::cerr << "gputune export: no workload to export in " << db << "\n";
    return EX_DATAERR;
  }
  return 0;
}

const CommandRegistrar kRegistrar{{"export", "export",
                                   "write a database's workloads as text recordings, which\n"
                                   "`gputune search --replay FILE` answers from without a GPU",
                                   50, run}};

}  // namespace
}  // namespace gputune::cli
