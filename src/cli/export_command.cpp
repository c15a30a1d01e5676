#include <sysexits.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "cli/command.h"
#include "cli/options.h"
#include "gputune/error.h"
#include "gputune/session.h"

namespace gputune::cli {
namespace {

int export_t4(const std::string& db, const std::string& folder, std::optional<int64_t> workload) {
  std::filesystem::create_directories(folder);
  int written = 0;
  for (const WorkloadInfo& w : stored_workloads(db)) {
    if (workload && w.id != *workload) continue;
    const std::string path =
        (std::filesystem::path(folder) / ("workload-" + std::to_string(w.id) + ".t4.json"))
            .string();
    std::ofstream out(path);
    out << t4_results(db, w.id);
    if (!out) throw Error(ErrorCode::kIo, path + ": cannot write the T4 results");
    std::cout << path << ": " << w.attempts << " attempts, " << w.ok << " ok\n";
    ++written;
  }
  if (written == 0) {
    std::cerr << "gputune export: no workload to export in " << db << "\n";
    return EX_DATAERR;
  }
  return 0;
}

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
  add("help,h", "show this help");
  const auto parsed = parse(args, options, {});
  if (!parsed) return 0;
  const auto& vm = *parsed;
  std::string db = vm["db"].as<std::string>();
  std::optional<int64_t> workload;
  if (vm.count("workload")) workload = vm["workload"].as<int64_t>();
  const std::string format = vm["format"].as<std::string>();
  if (format == "t4") return export_t4(db, vm["out"].as<std::string>(), workload);
  if (format != "recording") {
    std::cerr << "gputune export: --format " << format << " is unknown; expected recording or t4\n";
    return EX_USAGE;
  }
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
