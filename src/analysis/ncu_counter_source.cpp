#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/counter_source.h"
#include "core/text.h"
#include "gputune/error.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;

std::string find_ncu() {
  if (const char* env = std::getenv("GPUTUNE_NCU"); env != nullptr && *env != '\0') return env;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream folders(path);
    for (std::string folder; std::getline(folders, folder, ':');) {
      if (folder.empty()) continue;
      const fs::path candidate = fs::path(folder) / "ncu";
      if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
  }
  std::vector<std::string> roots;
  if (const char* cuda = std::getenv("CUDA_HOME"); cuda != nullptr && *cuda != '\0') {
    roots.push_back(cuda);
  }
  roots.push_back("/usr/local/cuda");
  for (const auto& root : roots) {
    const fs::path candidate = fs::path(root) / "bin" / "ncu";
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

struct ChildOutput {
  std::string output;  // stdout and stderr together
  int status = 0;
  bool timed_out = false;
};

// Runs argv in its own process group with stdout and stderr in one pipe; kills the group when
// it outlives `timeout_s` (the profiler and the launch under it alike).
ChildOutput run_with_watchdog(const std::vector<std::string>& argv, double timeout_s,
                              const std::atomic<bool>* stop, const std::string& stop_file) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw Error(ErrorCode::kIo, "cannot create a pipe for ncu");
  const pid_t pid = fork();
  if (pid < 0) throw Error(ErrorCode::kIo, "cannot fork to run ncu");
  if (pid == 0) {
    setpgid(0, 0);
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);
  close(fds[1]);
  ChildOutput result;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  char buffer[65536];
  bool stop_signalled = false;
  while (true) {
    if (!stop_signalled && stop != nullptr && *stop && !stop_file.empty()) {
      std::ofstream(stop_file) << "stop\n";
      stop_signalled = true;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  while (waitpid(pid, &result.status, 0) < 0 && errno == EINTR) {
  }
  if (result.timed_out) kill(-pid, SIGKILL);  // anything left in the group
  return result;
}

std::string last_lines(const std::string& text, size_t count) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!trim(line).empty()) lines.push_back(line);
  }
  std::string out;
  for (size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i) {
    out += "\n  " + lines[i];
  }
  return out;
}

class NcuCounterSource : public CounterSource {
 public:
  explicit NcuCounterSource(std::string ncu) : ncu_(ncu.empty() ? find_ncu() : std::move(ncu)) {}

  std::string name() const override { return "ncu"; }

  std::string unavailable_reason() const override {
    if (ncu_.empty()) {
      return "Nsight Compute (ncu) not found on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin; "
             "install it with the CUDA toolkit or set GPUTUNE_NCU to its path";
    }
    if (access(ncu_.c_str(), X_OK) != 0) {
      return "ncu at " + ncu_ + " is not an executable file; set GPUTUNE_NCU to ncu's path";
    }
    return "";
  }

  CounterResult profile(const ProfileTarget& target) override {
    CounterResult result;
    result.source = "ncu";
    result.message = unavailable_reason();
    if (!result.message.empty()) {
      result.unavailable = true;
      return result;
    }
    std::vector<std::string> argv = {ncu_,
                                     "--csv",
                                     "--page",
                                     "raw",
                                     "--clock-control",
                                     "none",
                                     "--target-processes",
                                     "all",
                                     "-k",
                                     "regex:^" + target.kernel + "$",
                                     "-c",
                                     std::to_string(target.launch_count),
                                     "--metrics",
                                     join_commas(target.metrics)};
    if (!target.profile_from_start) {
      argv.insert(argv.end() - 2, {"--profile-from-start", "off"});
    }
    argv.insert(argv.end(), target.command.begin(), target.command.end());
    const auto start = std::chrono::steady_clock::now();
    const ChildOutput child =
        run_with_watchdog(argv, target.timeout_s, target.stop, target.stop_file);
    result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.timed_out = child.timed_out;
    if (WIFEXITED(child.status)) result.exit_status = WEXITSTATUS(child.status);
    if (WIFSIGNALED(child.status)) result.signal = WTERMSIG(child.status);
    if (child.timed_out) {
      result.message = "ncu did not finish within " + std::to_string(int(target.timeout_s)) +
                       " s and was killed with the launch it profiled";
      return result;
    }
    if (child.output.find("ERR_NVGPUCTRPERM") != std::string::npos) {
      result.message =
          "ncu has no permission to read the GPU's performance counters (ERR_NVGPUCTRPERM); "
          "run as root, or load the driver with NVreg_RestrictProfilingToAdminUsers=0";
      result.unavailable = true;
      return result;
    }
    try {
      const auto kernels = parse_ncu_raw_csv(child.output, "ncu's output");
      if (kernels.empty()) throw Error(ErrorCode::kIo, "ncu profiled no launch");
      result.counters = kernels.front();
      result.launches = kernels;
      result.ok = true;
    } catch (const Error& e) {
      const bool exited = WIFEXITED(child.status);
      result.message = std::string(e.what()) + " (ncu " +
                       (exited ? "exited with " + std::to_string(WEXITSTATUS(child.status))
                               : "was killed by signal " + std::to_string(WTERMSIG(child.status))) +
                       "; kernel " + target.kernel + "):" + last_lines(child.output, 8);
    }
    return result;
  }

 private:
  static std::string join_commas(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
    return out;
  }

  std::string ncu_;
};

}  // namespace

std::unique_ptr<CounterSource> make_ncu_counter_source(const std::string& ncu) {
  return std::make_unique<NcuCounterSource>(ncu);
}

}  // namespace gputune
