#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/interrupt.h"
#include "cli/options.h"
#include "cli/progress_printer.h"
#include "gputune/error.h"
#include "gputune/json_text.h"
#include "gputune/results.h"
#include "gputune/search_options.h"
#include "gputune/session.h"

namespace gputune::cli {
namespace {

constexpr size_t kTableRows = 10;  // the table's length when --top is not given

int run(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune search SPEC [options]\n\n"
      "Compiles each variant the strategy proposes with NVRTC, checks its outputs against the\n"
      "baseline's, times it (CUDA events, L2 flushed, adaptive sample count) and stores every\n"
      "attempt in the database. A rerun measures nothing already measured; Ctrl-C stops after\n"
      "the variant in flight and the next run resumes.\n\noptions");
  add_spec_options(options);
  // The options of the request, from the table Python's search() takes too.
  for (const SearchOption& option : search_options()) {
    const std::string name = option.name == "jobs" ? "jobs,j" : option.name;
    if (option.value.empty()) {
      options.add_options()(name.c_str(), option.help.c_str());
      continue;
    }
    auto* value = po::value<std::string>()->value_name(option.value);
    if (!option.default_text.empty()) value->default_value(option.default_text);
    options.add_options()(name.c_str(), value, option.help.c_str());
  }
  auto add = options.add_options();
  add("top", po::value<size_t>(),
      "correct variants listed: 10 in the table, every one with --json, unless given");
  add("quiet,q", "no progress on stderr");
  add("warnings",
      "after the results, each compiler warning with the variants that got it; with "
      "--compile-only, each failure's whole log too (the database keeps both)");
  po::positional_options_description positional;
  positional.add("spec", 1);
  const auto parsed = parse(
      args, options, positional,
      "\nexamples:\n"
      "  gputune search spaces/transpose.yaml\n"
      "  gputune search transpose --set n=4096 --strategy random --budget 50\n"
      "  gputune search transpose --compile-only --arch sm_90\n"
      "  gputune search problem.json --check baseline --rtol 1e-3\n"
      "    (a T1 file, its outputs compared with its baseline's within 0.1%)\n"
      "  gputune search transpose --strategy brute_force --shard 3/8 --db shard-3.db\n"
      "  mpirun --enable-recovery --bind-to none -n 4 gputune search transpose --mpi --devices "
      "all\n"
      "    (one rank per node, each on all its GPUs)\n"
      "  mpirun --enable-recovery --bind-to none -n 2 gputune search sgemm --mpi --devices local\n"
      "    (one rank per GPU of one host)\n"
      "  gputune search sgemm --set m=2048,n=2048,k=2048 --strategy bottleneck --budget 2m\n"
      "    (the model, plus profiles of batch bests (CUPTI, else ncu) within 10% of the\n"
      "    planned time, whose remedies steer it; docs/bottleneck.md)\n");
  if (!parsed) return 0;
  const auto& vm = *parsed;
  SearchRequest request;
  if (vm.count("spec")) request.spec = vm["spec"].as<std::string>();
  request.overrides = parse_overrides(vm);
  if (!vm["db"].defaulted()) request.db = vm["db"].as<std::string>();
  for (const SearchOption& option : search_options()) {
    if (!vm.count(option.name) || vm[option.name].defaulted()) continue;
    set_search_option(&request, option.name,
                      option.value.empty() ? "" : vm[option.name].as<std::string>());
  }

  const bool json = vm.count("json");
  SearchOutcome outcome;
  {
    ProgressPrinter printer(!vm.count("quiet"));
    outcome = search(request, std::ref(printer), &install_interrupt_handler());
  }
  print_warnings(outcome.warnings);
  if (outcome.measuring_rank) return 0;  // rank 0 reports
  if (outcome.compile_only) {
    std::cout << compile_only_text(outcome, json, vm.count("warnings") > 0);
    if (outcome.interrupted) return kInterrupted;
    return outcome.compile_failures() ? kSomeVariantsFailed : 0;
  }
  const size_t top = vm.count("top") ? vm["top"].as<size_t>()
                     : json          ? ResultReport::kAllRows
                                     : kTableRows;
  if (json && outcome.profiling_reported) {
    auto document = nlohmann::ordered_json::parse(outcome.report.json(top));
    document["profiling"] = {{"asked", outcome.profiles_asked},
                             {"profiled", outcome.profiles_taken},
                             {"seconds", outcome.profiling_s},
                             {"share_of_wall_time", outcome.profiling_share},
                             {"summary", outcome.profiling}};
    std::cout << json_text(document, 2) << "\n";
  } else {
    std::cout << (json ? outcome.report.json(top) + "\n" : outcome.report.table(top));
  }
  if (!json && vm.count("warnings")) std::cout << outcome.report.compiler_warnings();
  if (!outcome.profiling.empty()) std::cerr << outcome.profiling << "\n";
  return outcome.interrupted ? kInterrupted : 0;
}

const CommandRegistrar kRegistrar{
    {"search", "search SPEC",
     "compile, check and time the variants of a spec's space on the GPU; every\n"
     "attempt is stored in the database, and a rerun measures nothing twice",
     10, run}};

}  // namespace
}  // namespace gputune::cli
