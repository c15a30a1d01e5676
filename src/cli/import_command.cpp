#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "gputune/error.h"
#include "gputune/session.h"

namespace gputune::cli {
namespace {

int run(const std::vector<std::string>& args) {
  po::options_description options(
      "gputune import kt-cache FILE --spec SPEC [options]\n\n"
      "Stores another tuner's results as prior data: a Kernel Tuner cache file (written by\n"
      "tune_kernel(..., cache=FILE)) or store_results output becomes a workload of SPEC's\n"
      "kernel at its problem values (after --set), which model searches of that kernel learn\n"
      "from. Configs are matched by parameter name (a parameter Kernel Tuner did not tune\n"
      "takes SPEC's baseline value); times become samples; failed configs, failures.\n"
      "Importing the same file again stores nothing new. With the GPU's --cc and --sm-count\n"
      "(or a file that holds Kernel Tuner's environment), `gputune release` ships the results.\n"
      "\noptions");
  add_spec_options(options);
  options.add_options()("cc", po::value<std::string>(),
                        "compute capability of the GPU the file was measured on, as 9.0")(
      "sm-count", po::value<int>(), "number of SMs of that GPU, as 132")(
      "format", po::value<std::string>(), "kt-cache")("file", po::value<std::string>(),
                                                      "the file to import");
  po::positional_options_description positional;
  positional.add("format", 1).add("file", 1);
  const auto parsed = parse(args, options, positional);
  if (!parsed) return 0;
  const auto& vm = *parsed;
  if (!vm.count("format") || vm["format"].as<std::string>() != "kt-cache") {
    throw Error(ErrorCode::kUsage,
                "gputune import: expected the format first: gputune import kt-cache FILE "
                "--spec SPEC");
  }
  if (!vm.count("file")) {
    throw Error(ErrorCode::kUsage,
                "gputune import kt-cache: no FILE; expected the Kernel Tuner cache or "
                "store_results JSON file");
  }
  ImportedGpu gpu;
  if (vm.count("cc")) {
    const auto cc = parse_compute_capability(vm["cc"].as<std::string>());
    if (!cc) {
      throw Error(ErrorCode::kUsage, "--cc '" + vm["cc"].as<std::string>() +
                                         "' is not a compute capability; expected MAJOR.MINOR, "
                                         "as 9.0 for an H100");
    }
    gpu.cc_major = cc->first;
    gpu.cc_minor = cc->second;
  }
  if (vm.count("sm-count")) {
    gpu.sm_count = vm["sm-count"].as<int>();
    if (gpu.sm_count <= 0) {
      throw Error(ErrorCode::kUsage, "--sm-count " + std::to_string(gpu.sm_count) +
                                         ": expected the GPU's number of SMs, as 132");
    }
  }
  const Spec spec = open_spec_of(vm);
  const std::string db = vm["db"].as<std::string>();
  const PriorImport imported = import_kernel_tuner(vm["file"].as<std::string>(), spec, db, gpu);
  print_warnings(imported.warnings);
  if (vm.count("json")) {
    std::cout << imported.json() << "\n";
    return 0;
  }
  std::cout << db << ": workload " << imported.workload << " (" << imported.device.name
            << "): " << imported.ok << " ok, " << imported.failures << " failed";
  if (imported.unchanged > 0) {
    std::cout << ", " << imported.unchanged << " stored already (unchanged)";
  }
  if (imported.outside > 0) {
    std::cout << ", " << imported.outside << " outside the spec's space (skipped)";
  }
  std::cout << "\n";
  for (const std::string& name : imported.defaulted) {
    std::cout << "  " << name << ": not in the file; the spec's baseline value was used\n";
  }
  return 0;
}

const CommandRegistrar kRegistrar{
    {"import", "import kt-cache FILE --spec SPEC",
     "store a Kernel Tuner cache file or store_results output as prior data for SPEC's kernel", 55,
     run}};

}  // namespace
}  // namespace gputune::cli
