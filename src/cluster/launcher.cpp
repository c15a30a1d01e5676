#include "cluster/launcher.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

namespace gputune {
namespace {

std::optional<int> number(const EnvironmentLookup& environment, const char* name) {
  const char* text = environment(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 0) return std::nullopt;
  return static_cast<int>(value);
}

bool yes(const char* value) {
  return value != nullptr && (std::strcmp(value, "1") == 0 || std::strcmp(value, "true") == 0);
}

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::vector<std::string> parent_command_line() {
  std::ifstream file("/proc/" + std::to_string(getppid()) + "/cmdline", std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(file), {}};
  std::vector<std::string> argv;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\0', start), text.size());
    argv.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return argv;
}

}  // namespace

std::optional<LocalRank> local_rank_from(const EnvironmentLookup& environment) {
  const std::pair<const char*, const char*> launchers[] = {
      {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
      {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
      // srun names no per-host count that is a plain number (SLURM_TASKS_PER_NODE reads "2(x4)").
      {"SLURM_LOCALID", nullptr},
  };
  for (const auto& [rank_name, size_name] : launchers) {
    const std::optional<int> rank = number(environment, rank_name);
    if (!rank) continue;
    const std::optional<int> size = size_name ? number(environment, size_name) : std::nullopt;
    return LocalRank{*rank, size.value_or(0)};
  }
  return std::nullopt;
}

std::optional<LocalRank> local_rank_from_environment() {
  return local_rank_from([](const char* name) { return std::getenv(name); });
}

size_t rank_compile_jobs(size_t usable, size_t host, const std::optional<LocalRank>& local) {
  usable = std::max<size_t>(usable, 1);
  if (usable < host || !local || local->size <= 1) return usable;
  return std::max<size_t>(usable / static_cast<size_t>(local->size), 1);
}

Recovery recovery_from(const EnvironmentLookup& environment,
                       const std::vector<std::string>& launcher) {
  for (const char* name : {"OMPI_MCA_orte_enable_recovery", "PRTE_MCA_prte_enable_recovery",
                           "OMPI_MCA_prte_enable_recovery"}) {
    if (const char* value = environment(name)) return yes(value) ? Recovery::kOn : Recovery::kOff;
  }
  if (environment("PRTE_LAUNCHED") == nullptr) {
    // Open MPI 4 sets OMPI_MCA_orte_enable_recovery whenever mpirun has --enable-recovery.
    return environment("OMPI_COMM_WORLD_SIZE") ? Recovery::kOff : Recovery::kUnknown;
  }
  if (launcher.empty()) return Recovery::kUnknown;
  const std::string name = base_name(launcher.front());
  if (name != "prterun" && name != "mpirun" && name != "mpiexec") return Recovery::kUnknown;
  const bool asked =
      std::find(launcher.begin(), launcher.end(), "--enable-recovery") != launcher.end();
  return asked ? Recovery::kOn : Recovery::kOff;
}

Recovery recovery_of_this_rank() {
  return recovery_from([](const char* name) { return std::getenv(name); }, parent_command_line());
}

std::vector<int> local_share(const std::vector<int>& gpus, const LocalRank& local) {
  if (gpus.empty()) return {};
  const int count = static_cast<int>(gpus.size());
  if (local.size <= 0 || local.size > count || local.rank >= local.size)
    return {gpus[local.rank % count]};
  std::vector<int> share;
  for (int i = local.rank; i < count; i += local.size) share.push_back(gpus[i]);
  return share;
}

}  // namespace gputune
