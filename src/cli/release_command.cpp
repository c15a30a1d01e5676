#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "gputune/release.h"

namespace gputune::cli {
namespace {

const char* const kExamples = R"(
examples:
  gputune release h100.db h200.db -o kernels.gtrel
  gputune release results.db -o sgemm.gtrel --kernel sgemm --embed sm_90,sm_80 --top 3
  gputune release results.db -o sgemm.gtrel --spec old/sgemm.yaml --no-code
  gputune release --dump kernels.gtrel
)";

std::vector<std::string> strings(const po::variables_map& vm, const char* name) {
  return vm.count(name) ? vm[name].as<std::vector<std::string>>() : std::vector<std::string>{};
}

int run(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune release DB... -o FILE.gtrel [options]\n"
      "gputune release --dump FILE.gtrel\n\n"
      "Builds a release database from result databases (read-only): per kernel, GPU, toolchain\n"
      "and problem point, the best config and those within its noise (at most --top), with\n"
      "median, spread, speed-up over the baseline and margin to the runner-up. A config other\n"
      "than the baseline is the choice only where it beats the baseline by more than the noise.\n"
      "It embeds compiled code of every kept config (a cubin per architecture, PTX for the\n"
      "lowest), so that an application needs neither NVRTC nor the kernel source. A text dump,\n"
      "one line per choice, is written beside it (FILE.gtrel.txt) for review as a diff.\n"
      "The format: docs/release-format.md.\n\noptions");
  auto add = options.add_options();
  add("db", po::value<std::vector<std::string>>()->composing(), "result databases (positional)");
  add("output,o", po::value<std::string>(), "the release database to write (FILE.gtrel)");
  add("spec", po::value<std::vector<std::string>>()->multitoken()->composing(),
      "spec files (or shipped names) whose kernel sources to compile; default: the spec paths "
      "the databases recorded. The source must be the one measured");
  add("embed", po::value<std::string>(),
      "architectures to embed a cubin for, e.g. sm_90,sm_80 (PTX for the lowest too); default: "
      "those of the GPUs measured");
  add("no-code", "embed no compiled code (the run time then needs NVRTC and the source)");
  add("top", po::value<int>()->default_value(5), "configs kept per kernel, GPU and problem");
  add("kernel", po::value<std::vector<std::string>>()->multitoken()->composing(),
      "only these kernels (by the spec's kernel name)");
  add("force", "replace an existing output file");
  add("commit", po::value<std::string>()->default_value(""), "gputune commit to record");
  add("jobs,j", po::value<std::string>(),
      "compiler processes (default: one per CPU this process may use)");
  add("cache-dir", po::value<std::string>()->default_value(""),
      "module cache folder (default: ~/.cache/gputune/modules)");
  add("no-cache", "compile everything afresh");
  add("dump", po::value<std::string>(), "print the text dump of a release database and exit");
  add("json", "write the summary as JSON");
  add("help,h", "show this help");
  po::positional_options_description positional;
  positional.add("db", -1);
  const auto parsed = parse(args, options, positional, kExamples);
  if (!parsed) return 0;
  const auto& vm = *parsed;

  if (vm.count("dump")) {
    std::cout << release_dump_text(vm["dump"].as<std::string>());
    return 0;
  }
  ReleaseRequest request;
  request.databases = strings(vm, "db");
  if (vm.count("output")) request.output = vm["output"].as<std::string>();
  request.specs = strings(vm, "spec");
  if (vm.count("embed")) request.embed = vm["embed"].as<std::string>();
  request.no_code = vm.count("no-code") > 0;
  request.top = vm["top"].as<int>();
  request.kernels = strings(vm, "kernel");
  request.force = vm.count("force") > 0;
  request.commit = vm["commit"].as<std::string>();
  request.jobs = jobs_option(vm);
  request.cache_dir = vm["cache-dir"].as<std::string>();
  request.use_cache = !vm.count("no-cache");

  const ReleaseSummary s =
      build_release(request, [](const std::string& line) { std::cerr << line << "\n"; });
  if (vm.count("json")) {
    std::cout << s.json() << "\n";
    return 0;
  }
  std::cout << s.output << ": " << s.kernels << " kernels, " << s.devices << " GPUs, " << s.problems
            << " problem points, " << s.choices << " choices, " << s.configs << " configs";
  if (s.code > 0) {
    std::cout << ", " << s.code << " code images (";
    for (size_t i = 0; i < s.code_targets.size(); ++i) {
      std::cout << (i ? ", " : "") << s.code_targets[i];
    }
    std::cout << ")";
  }
  std::cout << "\n" << s.dump << ": text dump\n";
  return 0;
}

const CommandRegistrar kRegistrar{
    {"release", "release DB... -o FILE.gtrel",
     "build a release database of the best configs per GPU and problem size, with compiled\n"
     "code, for applications to ship (docs/release-format.md)",
     60, run}};

}  // namespace
}  // namespace gputune::cli
