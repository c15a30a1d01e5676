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
      "recording replays with `gputune search --replay FILE`, on any machine. With --format t4,\n"
      "writes T4 results instead (the JSON results format other autotuners read), one\n"
      "workload-ID.t4.json per workload.\n\noptions");
  auto add = options.add_options();
  add("db", po::value<std::string>()->default_value("gputune.db"), "database file");
  add("out", po::value<std::string>()->default_value("."), "folder the recordings go to");
  add("workload", po::value<int64_t>(), "only this workload (see gputune show)");
  add("commit", po::value<std::string>()->default_value(""), "gputune commit to record");
  add("format", po::value<std::string>()->default_value("recording"), "recording or t4");
  add("json", "list the files written as JSON");
  add("help,h", "show this help");
  const auto parsed = parse(args, options, {});
  if (!parsed) return 0;
  const auto& vm = *parsed;
  std::string db = vm["db"].as<std::string>();
  std::optional<int64_t> workload;
  if (vm.count("workload")) workload = vm["workload"].as<int64_t>();
  const std::string format = vm["format"].as<std::string>();
  if (format != "recording" && format != "t4") {
    std::cerr << "gputune export: --format " << format << " is unknown; expected recording or t4\n";
    return EX_USAGE;
  }
  const std::string folder = vm["out"].as<std::string>();
  const auto written =
      format == "t4" ? export_t4(db, folder, workload)
                     : export_recordings(db, folder, workload, vm["commit"].as<std::string>());
  if (vm.count("json")) {
    std::cout << exported_json(written) << "\n";
  } else {
    for (const auto& [path, w] : written) {
      std::cout << path << ": " << w.attempts << " attempts, " << w.ok << " ok\n";
    }
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
