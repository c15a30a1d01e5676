// gputune_bench: where gputune stands on the GPU it runs on. Measures the reference ceilings
// and the best variant of each listed space in the same run, prints the ratios and appends
// them to the results file with the GPU, driver, date and commit.
#include <yaml-cpp/yaml.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>

#include "ceilings.h"
#include "compile/output_checker.h"
#include "core/expression.h"
#include "gputune/error.h"
#include "process/gpu_list.h"
#include "search/report.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_loader.h"
#include "store/store.h"

namespace po = boost::program_options;
using namespace gputune;

namespace {

struct Target {
  std::string spec;
  Overrides set;
  std::string reference;  // copy, sgemm, sgemv, subspace, baseline
  std::vector<std::string> size;
  std::string where;   // subspace: the configs the best variant is compared with
  double target = 0;   // the ratio aimed for; 0: none (the ratio is only reported)
  double speedup = 0;  // the speed-up over the spec's baseline aimed for; 0: none
};

std::vector<Target> read_targets(const std::string& path) {
  std::vector<Target> targets;
  for (const auto& node : YAML::LoadFile(path)) {
    Target t;
    t.spec = node["spec"].as<std::string>();
    if (node["set"]) {
      for (const auto& kv : node["set"]) {
        t.set.emplace_back(kv.first.as<std::string>(), kv.second.as<std::string>());
      }
    }
    t.reference = node["reference"].as<std::string>();
    if (node["size"]) t.size = node["size"].as<std::vector<std::string>>();
    if (node["where"]) t.where = node["where"].as<std::string>();
    if (node["target"]) t.target = node["target"].as<double>();
    if (node["speedup"]) t.speedup = node["speedup"].as<double>();
    targets.push_back(std::move(t));
  }
  return targets;
}

std::vector<int> evaluate_size(const Target& t, const Problem& problem) {
  Scope scope;
  for (const auto& [name, value] : problem.problem_values()) scope.set(name, value);
  std::vector<int> size;
  for (const auto& text : t.size)
    size.push_back(static_cast<int>(Expression(text, scope).evaluate()));
  return size;
}

// Whether `condition` (an expression of problem values and parameters) holds for a config.
bool holds(const Problem& problem, uint64_t index, const std::string& condition) {
  Scope scope;
  for (const auto& [name, value] : problem.problem_values()) scope.set(name, value);
  const SearchSpace& space = problem.space();
  const std::vector<Value> values = space.values(index);
  for (size_t d = 0; d < values.size(); ++d) {
    if (values[d].is_number()) scope.set(space.dimensions()[d].name, values[d].as_number());
  }
  return Expression(condition, scope).evaluate() != 0;
}

std::string today() {
  std::time_t now = std::time(nullptr);
  char buffer[16];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d", std::gmtime(&now));
  return buffer;
}

struct Row {
  std::string space, problem, best_config, reference_text, status, speedup_status;
  double best_ms = 0, ratio = 0, target = 0, speedup = 0, speedup_target = 0, reference_value = 0;
  int registers = 0, spill_bytes = 0;
  int64_t variants = 0, failed = 0;
};

}  // namespace

int main(int argc, char** argv) {
  po::options_description options("gputune_bench [options]");
  options.add_options()("targets", po::value<std::string>()->default_value("bench/targets.yaml"),
                        "what to measure")("only", po::value<std::string>(),
                                           "only specs whose path contains this text")(
      "results", po::value<std::string>()->default_value("bench/RESULTS.md"), "file appended to")(
      "db", po::value<std::string>()->default_value("bench.db"), "tuning database")(
      "commit", po::value<std::string>()->default_value("unknown"), "commit measured")(
      "help,h", "show this help");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, options), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "gputune_bench: " << e.what() << "\n";
    return 64;
  }
  if (vm.count("help")) {
    std::cout << options;
    return 0;
  }
  try {
    auto gpus = list_gpus();
    if (gpus.empty()) throw Error(ErrorCode::kNoGpu, "no GPU: the benchmark measures on one");
    const DeviceInfo& gpu = gpus.front();
    std::fprintf(stderr, "measuring the copy bandwidth...\n");
    double copy_gbs = bench::copy_bandwidth_gbs(int64_t{1} << 30);
    std::map<std::vector<int>, double> sgemm_cache, sgemv_cache;

    auto store = open_sqlite_store(vm["db"].as<std::string>());
    auto compiler = make_nvrtc_compiler();
    std::vector<Row> rows;
    for (const auto& t : read_targets(vm["targets"].as<std::string>())) {
      if (vm.count("only") && t.spec.find(vm["only"].as<std::string>()) == std::string::npos) {
        continue;
      }
      Row row;
      row.space = t.spec;
      row.target = t.target;
      row.speedup_target = t.speedup;
      Problem problem(load_spec(t.spec, t.set));
      row.problem = config_text(problem.problem_json());
      std::fprintf(stderr, "tuning %s %s...\n", t.spec.c_str(), row.problem.c_str());
      auto runner = make_gpu_runner(problem, gpu.ordinal, TimingOptions{},
                                    compile_output_checkers(problem.spec(), *compiler, gpu.arch()));
      SearchResult result = run_search(problem, *runner, *compiler, *store, SearchOptions{});
      const Measurement* best = nullptr;
      const Measurement* best_of_subspace = nullptr;
      auto measured = store->measured(result.workload);
      for (const auto& m : measured) {
        ++row.variants;
        if (m.status != Status::kOk) {
          ++row.failed;
          continue;
        }
        if (!best || m.median_ms() < best->median_ms()) best = &m;
        if (t.reference == "subspace" && holds(problem, m.config_index, t.where) &&
            (!best_of_subspace || m.median_ms() < best_of_subspace->median_ms())) {
          best_of_subspace = &m;
        }
      }
      if (!best) {
        row.status = "no correct variant";
        rows.push_back(row);
        continue;
      }
      row.best_ms = best->median_ms();
      row.best_config = config_text(best->config);
      row.registers = best->registers;
      row.spill_bytes = best->spill_bytes;
      if (result.baseline.status == Status::kOk) {
        row.speedup = result.baseline.median_ms() / row.best_ms;
      }
      double seconds = row.best_ms / 1e3;
      std::vector<int> size = evaluate_size(t, problem);
      char text[512];
      if (t.reference == "copy") {
        double gbs = problem.bytes(best->config_index) / seconds / 1e9;
        row.ratio = gbs / copy_gbs;
        row.reference_value = copy_gbs;
        std::snprintf(text, sizeof text, "%.0f GB/s of copy %.0f GB/s", gbs, copy_gbs);
      } else if (t.reference == "sgemm" && size.size() == 3) {
        if (!sgemm_cache.count(size))
          sgemm_cache[size] = bench::sgemm_gflops(size[0], size[1], size[2]);
        double gflops = problem.flops(best->config_index) / seconds / 1e9;
        row.ratio = gflops / sgemm_cache[size];
        row.reference_value = sgemm_cache[size];
        std::snprintf(text, sizeof text, "%.0f GFLOP/s of cuBLAS %.0f", gflops, sgemm_cache[size]);
      } else if (t.reference == "sgemv" && size.size() == 2) {
        if (!sgemv_cache.count(size)) sgemv_cache[size] = bench::sgemv_ms(size[0], size[1]);
        row.ratio = sgemv_cache[size] / row.best_ms;
        row.reference_value = sgemv_cache[size];
        double gbs = problem.bytes(best->config_index) / seconds / 1e9;
        std::snprintf(text, sizeof text, "%.0f GB/s (%.0f%% of copy); cuBLAS %.4f ms", gbs,
                      100 * gbs / copy_gbs, sgemv_cache[size]);
      } else if (t.reference == "baseline") {
        // No outside reference (nothing in cuBLAS or kernels/ computes it): the spec's
        // baseline, measured in the same search, with the best's throughput for scale.
        if (result.baseline.status != Status::kOk)
          throw Error(ErrorCode::kSpec, t.spec + ": the baseline did not run correctly");
        row.ratio = row.speedup;
        row.reference_value = result.baseline.median_ms();
        std::snprintf(text, sizeof text, "baseline %.4f ms; best %.0f GFLOP/s, %.0f GB/s",
                      result.baseline.median_ms(),
                      problem.flops(best->config_index) / seconds / 1e9,
                      problem.bytes(best->config_index) / seconds / 1e9);
      } else if (t.reference == "subspace" && !t.where.empty()) {
        if (!best_of_subspace)
          throw Error(ErrorCode::kSpec, t.spec + ": no correct variant where " + t.where);
        row.ratio = best_of_subspace->median_ms() / row.best_ms;
        row.reference_value = best_of_subspace->median_ms();
        std::snprintf(text, sizeof text, "best where %s: %.4f ms (%s)", t.where.c_str(),
                      best_of_subspace->median_ms(), config_text(best_of_subspace->config).c_str());
      } else {
        throw Error(ErrorCode::kUsage, t.spec + ": unknown reference '" + t.reference +
                                           "' or wrong size (copy; sgemm [m,n,k]; sgemv [m,n]; "
                                           "subspace with where; baseline)");
      }
      row.reference_text = text;
      row.status = row.target <= 0 ? "none" : row.ratio >= row.target ? "met" : "missed";
      if (row.speedup_target > 0) {
        row.speedup_status = row.speedup >= row.speedup_target ? "met" : "missed";
      }
      rows.push_back(row);
    }

    std::string header = "\n### " + today() + " " + gpu.name + ", driver " +
                         std::to_string(gpu.driver_version) + ", commit " +
                         vm["commit"].as<std::string>() + ", cuBLAS " + bench::cublas_version() +
                         "\n\nCopy bandwidth (device to device, read + write): " +
                         std::to_string(static_cast<int>(copy_gbs)) + " GB/s.\n\n";
    std::string table =
        "| space | problem | best config | median ms | against the reference | ratio | target | "
        "speed-up over baseline | regs | spills | variants (failed) |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& r : rows) {
      char line[1024], speedup[64], target[64] = "-";
      if (r.target > 0) {
        std::snprintf(target, sizeof target, "%.2f (%s)", r.target, r.status.c_str());
      }
      if (r.speedup_target > 0) {
        std::snprintf(speedup, sizeof speedup, "%.2fx (goal %.2fx, %s)", r.speedup,
                      r.speedup_target, r.speedup_status.c_str());
      } else {
        std::snprintf(speedup, sizeof speedup, "%.2fx", r.speedup);
      }
      std::snprintf(line, sizeof line,
                    "| %s | %s | %s | %.4f | %s | %.3f | %s | %s | %d | %d | %lld (%lld) |\n",
                    r.space.c_str(), r.problem.c_str(), r.best_config.c_str(), r.best_ms,
                    r.reference_text.c_str(), r.ratio, target, speedup, r.registers, r.spill_bytes,
                    static_cast<long long>(r.variants), static_cast<long long>(r.failed));
      table += line;
    }
    std::cout << header << table;
    std::ofstream(vm["results"].as<std::string>(), std::ios::app) << header << table;
    return 0;
  } catch (const Error& e) {
    std::cerr << "gputune_bench: " << e.what() << "\n";
    return exit_code_for(e.code());
  } catch (const std::exception& e) {
    std::cerr << "gputune_bench: " << e.what() << "\n";
    return 70;
  }
}
