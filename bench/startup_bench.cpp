// Time from process start to the first finished launch of a shipped kernel (issue 11): (a) the
// run-time library's selection and embedded code against (b) the same config compiled from the
// spec's source with NVRTC (no module cache). Each measurement is a fresh process (this program
// exec()ed with --child), so it includes process start, driver initialisation and context
// creation; both children read the spec (for the arguments) and select alike.
//   gputune_startup_bench --release R.gtrel --spec S.yaml [--set k=v ...] [--runs N]
// Prints the medians, their ratio and a row for bench/RESULTS.md. Needs a GPU.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compile/compiler.h"
#include "gputune/select.h"
#include "profile/config_assignments.h"
#include "run/cuda_driver.h"
#include "run/scalar_visit.h"
#include "search/search.h"
#include "space/problem.h"
#include "spec/spec_loader.h"

extern char** environ;

namespace gputune {
namespace {

struct Args {
  std::string release, spec, child;
  ProblemOverrides sets;
  int runs = 10;
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The space's index of the selected config, through the session's NAME=VALUE,... reading.
uint64_t index_of(const Problem& problem, const runtime::Config& config) {
  std::string assignments;
  for (const runtime::Parameter& p : config) {
    assignments += (assignments.empty() ? "" : ",") + p.name + "=" + p.text;
  }
  return config_index_of(problem, assignments);
}

// Device buffers (zeroed) and scalar values of every launch of the variant, as
// cuLaunchKernel takes them.
struct Arguments {
  std::vector<std::unique_ptr<runtime::DeviceBuffer>> buffers;
  std::vector<uint64_t> slots;                 // one per spec argument
  std::vector<std::vector<void*>> per_launch;  // pointers into slots
};

void make_arguments(const Problem& problem, const Variant& variant, Arguments* out) {
  const Spec& spec = problem.spec();
  const std::vector<BufferShape> shapes = problem.buffers();
  out->buffers.reserve(shapes.size());
  out->slots.assign(spec.arguments.size(), 0);
  size_t buffer = 0, scalar = 0;
  for (size_t a = 0; a < spec.arguments.size(); ++a) {
    const ArgumentSpec& argument = spec.arguments[a];
    if (argument.is_buffer) {
      const size_t bytes = std::max<size_t>(1, shapes[buffer++].count * size_of(argument.type));
      out->buffers.push_back(std::make_unique<runtime::DeviceBuffer>(bytes, 0));
      std::vector<unsigned char> zeros(bytes, 0);
      out->buffers.back()->upload(zeros.data());
      const uint64_t pointer = out->buffers.back()->address();
      std::memcpy(&out->slots[a], &pointer, sizeof(pointer));
    } else {
      const double value = variant.scalar_arguments.at(scalar++);
      visit_type(argument.type, [&](auto zero) {
        const auto converted = convert<decltype(zero)>(value);
        std::memcpy(&out->slots[a], &converted, sizeof(converted));
        return 0;
      });
    }
  }
  for (const Launch& launch : variant.launches) {
    std::vector<void*> params;
    for (size_t a : launch.arguments) params.push_back(&out->slots[a]);
    out->per_launch.push_back(std::move(params));
  }
}

// One measurement, in this fresh process; prints the time its launches finished.
int child(const Args& args) {
  const double begin = now_ms();
  SelectRequest request;
  request.spec_or_kernel = args.spec;
  request.overrides = args.sets;
  request.dbs = {args.release};
  const SelectOutcome outcome = select_config(request);
  const runtime::Selection& s = outcome.selection;
  const double selected = now_ms();
  // The benchmark's stand-in for the application's own buffers and scalars: timed apart.
  Problem problem(load_spec(args.spec, args.sets));
  const Variant variant = problem.variant(index_of(problem, s.config));
  Arguments arguments;
  make_arguments(problem, variant, &arguments);
  const double set_up = now_ms();
  if (args.child == "embedded") {
    if (!s.has_code()) throw Error(ErrorCode::kUsage, "no embedded code: " + s.explanation);
    for (size_t i = 0; i < s.launches.size(); ++i)
      s.launch(arguments.per_launch.at(i).data(), nullptr, i);
    runtime::synchronize();
  } else {
    const std::string arch = cuda::query_device(0).arch();
    const CompiledKernel kernel =
        make_nvrtc_compiler()->compile(compile_request(problem, variant, arch));
    if (!kernel.ok) throw Error(ErrorCode::kNvrtc, "does not compile:\n" + kernel.log);
    cuda::Context context(0);
    cuda::Module module;
    cuda::check(cuda::Module::load(kernel.image, &module), "cuModuleLoadData");
    cuda::Stream stream;
    for (size_t i = 0; i < variant.launches.size(); ++i) {
      const Launch& l = variant.launches[i];
      CUfunction function = nullptr;
      cuda::check(module.function(kernel.lowered_names.at(l.kernel), &function),
                  "cuModuleGetFunction");
      if (l.dynamic_shared_bytes > 48 * 1024) {
        cuda::check(
            cuda::set_function_attribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                         static_cast<int>(l.dynamic_shared_bytes)),
            "cuFuncSetAttribute");
      }
      cuda::check(cuda::launch(function, l.grid, l.block, l.dynamic_shared_bytes, stream,
                               arguments.per_launch[i].data()),
                  "cuLaunchKernel");
    }
    stream.synchronize();
  }
  const double end = now_ms();
  // The end, then the stages: before main's first line is the rest of the total.
  std::printf("%.6f %.3f %.3f %.3f\n", end, selected - begin, set_up - selected, end - set_up);
  return 0;
}

struct Timing {
  double total = 0;                         // before the spawn to the launches' end
  double select = 0, set_up = 0, code = 0;  // the child's stages (set_up: the benchmark's own)
};

// Runs one child and returns its timing.
Timing measure(const char* self, const Args& args, const std::string& mode) {
  std::vector<std::string> argv = {self,         "--child", mode,     "--release",
                                   args.release, "--spec",  args.spec};
  for (const auto& [name, value] : args.sets) {
    argv.push_back("--set");
    argv.push_back(name + "=" + value);
  }
  std::vector<char*> pointers;
  for (std::string& a : argv) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw Error(ErrorCode::kInternal, "pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  const double start = now_ms();
  pid_t pid = 0;
  if (posix_spawn(&pid, self, &actions, nullptr, pointers.data(), environ) != 0) {
    throw Error(ErrorCode::kInternal, std::string("cannot start ") + self);
  }
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  std::string text;
  char chunk[256];
  ssize_t got = 0;
  while ((got = read(pipe_fds[0], chunk, sizeof(chunk))) > 0) text.append(chunk, got);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty()) {
    throw Error(ErrorCode::kInternal,
                "the " + mode + " child failed (status " + std::to_string(status) + ")");
  }
  Timing timing;
  double end = 0;
  if (std::sscanf(text.c_str(), "%lf %lf %lf %lf", &end, &timing.select, &timing.set_up,
                  &timing.code) != 4) {
    throw Error(ErrorCode::kInternal, "the " + mode + " child printed '" + text + "'");
  }
  timing.total = end - start;
  return timing;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

int usage() {
  std::fprintf(stderr,
               "usage: gputune_startup_bench --release R.gtrel --spec S.yaml [--set k=v ...] "
               "[--runs N]\n");
  return 2;
}

}  // namespace
}  // namespace gputune

int main(int argc, char** argv) {
  using namespace gputune;
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return usage();
    const std::string value = argv[++i];
    if (flag == "--release") {
      args.release = value;
    } else if (flag == "--spec") {
      args.spec = value;
    } else if (flag == "--child") {
      args.child = value;
    } else if (flag == "--runs") {
      args.runs = std::max(1, std::atoi(value.c_str()));
    } else if (flag == "--set" && value.find('=') != std::string::npos) {
      args.sets.emplace_back(value.substr(0, value.find('=')), value.substr(value.find('=') + 1));
    } else {
      return usage();
    }
  }
  if (args.release.empty() || args.spec.empty()) return usage();
  try {
    if (!args.child.empty()) return child(args);
    std::vector<Timing> embedded, nvrtc;
    for (int r = 0; r < args.runs; ++r) {  // interleaved, so drift affects both alike
      embedded.push_back(measure("/proc/self/exe", args, "embedded"));
      nvrtc.push_back(measure("/proc/self/exe", args, "nvrtc"));
    }
    std::string problem;
    for (const auto& [name, value] : args.sets)
      problem += (problem.empty() ? "" : " ") + name + "=" + value;
    auto median = [](const std::vector<Timing>& runs, double Timing::*field) {
      std::vector<double> values;
      for (const Timing& t : runs) values.push_back(t.*field);
      return median_of(values);
    };
    // Without the benchmark's own argument set-up, which an application does its own way.
    auto app = [](std::vector<Timing> runs) {
      std::vector<double> values;
      for (const Timing& t : runs) values.push_back(t.total - t.set_up);
      return median_of(values);
    };
    const double a = app(embedded), b = app(nvrtc);
    std::printf("start to first launch, median of %d fresh processes each (ms)\n", args.runs);
    for (const auto& [name, runs] : {std::pair{"embedded code", &embedded}, {"NVRTC", &nvrtc}}) {
      std::printf(
          "  %-13s total %.1f: before main and driver %.1f, select %.1f, benchmark's "
          "arguments %.1f, code and launch %.1f\n",
          name, median(*runs, &Timing::total),
          median(*runs, &Timing::total) - median(*runs, &Timing::select) -
              median(*runs, &Timing::set_up) - median(*runs, &Timing::code),
          median(*runs, &Timing::select), median(*runs, &Timing::set_up),
          median(*runs, &Timing::code));
    }
    std::printf("  without the benchmark's arguments: embedded %.1f, NVRTC %.1f, ratio %.1fx\n", a,
                b, b / a);
    // NVRTC 13 may serve a later process's cubin from a cache of its own (the GPU machine's
    // NVRTC then runs no ptxas): only the first process is sure to have compiled, where no
    // earlier run on this machine compiled the same source.
    std::printf("  the first NVRTC process: code and launch %.1f ms\n", nvrtc.front().code);
    std::printf("| %s | %s | %.1f ms | %.1f ms | %.1fx | %.1f ms | %.1f ms | %.1f ms | %d |\n",
                args.spec.c_str(), problem.c_str(), a, b, b / a, median(embedded, &Timing::code),
                median(nvrtc, &Timing::code), nvrtc.front().code, args.runs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gputune_startup_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
