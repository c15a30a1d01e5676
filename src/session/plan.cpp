#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/shard.h"
#include "gputune/error.h"
#include "gputune/json_text.h"
#include "gputune/session.h"
#include "search/report.h"
#include "space/problem.h"
#include "spec/spec_catalog.h"
#include "spec/spec_loader.h"

namespace gputune {
namespace {

// A word the shell reads back as itself.
std::string shell_word(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_-./=,:+%@") == std::string::npos) {
    return word;
  }
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Every combination of the sweeps' values, the first sweep slowest.
std::vector<ProblemOverrides> sweep_points(const CampaignRequest& request) {
  std::vector<ProblemOverrides> points{request.overrides};
  for (const auto& [name, values] : request.sweeps) {
    if (values.empty()) {
      throw Error(ErrorCode::kUsage,
                  "--sweep " + name + "=: expected values, such as --sweep " + name + "=1024,2048");
    }
    std::vector<ProblemOverrides> next;
    for (const ProblemOverrides& point : points) {
      for (const std::string& value : values) {
        next.push_back(point);
        next.back().emplace_back(name, value);
      }
    }
    points = std::move(next);
  }
  return points;
}

std::string db_of(const CampaignRequest& request, uint64_t shard) {
  std::string db = request.db_pattern;
  const std::string k = std::to_string(shard);
  for (size_t at = db.find("{K}"); at != std::string::npos; at = db.find("{K}", at + k.size())) {
    db.replace(at, 3, k);
  }
  return db;
}

std::string search_command(const PlannedWorkload& workload, const std::string& db,
                           const std::string& shard, const std::string& options) {
  std::string command = "gputune search " + shell_word(workload.spec);
  for (const auto& [name, value] : workload.overrides) {
    command += " --set " + shell_word(name + "=" + value);
  }
  if (!shard.empty()) command += " --strategy brute_force --budget none --shard " + shard;
  command += " --db " + shell_word(db);
  if (!options.empty()) command += " " + options;
  return command;
}

// Walked where the space is small enough to walk; above, a shard's share of the estimate
// (shards deal configs by index, every count-th one, so each gets about as many).
ConfigCount valid_in_shard(const SearchSpace& space, const Shard& shard) {
  if (space.size() > SearchSpace::kCountWalkLimit) {
    const ConfigCount all = space.count_valid_bounded();
    return {all.configs / shard.count, all.estimated};
  }
  uint64_t count = 0;
  for (uint64_t i = shard.index; i < space.size(); i += shard.count) count += space.valid(i);
  return {count, false};
}

}  // namespace

std::vector<PlannedShard> plan_campaign(const CampaignRequest& request) {
  if (request.specs.empty()) {
    throw Error(ErrorCode::kUsage,
                "gputune plan: give at least one SPEC (a file or a shipped "
                "spec's name)");
  }
  if (request.shards == 0) {
    throw Error(ErrorCode::kUsage, "--shards 0: expected at least one shard, such as --shards 8");
  }
  if (request.shards > 1 && request.db_pattern.find("{K}") == std::string::npos) {
    throw Error(ErrorCode::kUsage, "--db " + request.db_pattern +
                                       ": expected {K} in it, so that every shard writes its own "
                                       "file, such as shard-{K}.db");
  }
  std::vector<PlannedWorkload> workloads;
  std::vector<std::unique_ptr<Problem>> problems;
  for (const std::string& spec : request.specs) {
    for (const ProblemOverrides& point : sweep_points(request)) {
      auto problem = std::make_unique<Problem>(load_spec(resolve_spec(spec), point));
      PlannedWorkload workload;
      workload.spec = spec;
      workload.overrides = point;
      workload.title = report_title(*problem);
      workloads.push_back(std::move(workload));
      problems.push_back(std::move(problem));
    }
  }

  std::vector<PlannedShard> shards(request.shards);
  for (uint64_t k = 0; k < request.shards; ++k) {
    shards[k].index = k;
    shards[k].count = request.shards;
    shards[k].db = db_of(request, k);
  }
  if (workloads.size() == 1 && request.shards > 1) {
    // One workload: its space is split by config index.
    for (PlannedShard& shard : shards) {
      PlannedWorkload part = workloads.front();
      const Shard slice{shard.index, shard.count};
      const ConfigCount count = valid_in_shard(problems.front()->space(), slice);
      part.configs = count.configs;
      part.configs_estimated = count.estimated;
      shard.commands.push_back(
          search_command(part, shard.db, slice.text(), request.search_options));
      shard.workloads.push_back(std::move(part));
    }
    return shards;
  }
  for (size_t i = 0; i < workloads.size(); ++i) {
    PlannedShard& shard = shards[i % request.shards];
    PlannedWorkload& workload = workloads[i];
    const ConfigCount count = valid_in_shard(problems[i]->space(), Shard{});
    workload.configs = count.configs;
    workload.configs_estimated = count.estimated;
    shard.commands.push_back(search_command(workload, shard.db, "", request.search_options));
    shard.workloads.push_back(std::move(workload));
  }
  return shards;
}

std::string plan_json(const std::vector<PlannedShard>& shards) {
  nlohmann::json out = nlohmann::json::array();
  for (const PlannedShard& shard : shards) {
    nlohmann::json workloads = nlohmann::json::array();
    for (const PlannedWorkload& w : shard.workloads) {
      nlohmann::json set = nlohmann::json::object();
      for (const auto& [name, value] : w.overrides) set[name] = value;
      nlohmann::json row = {
          {"spec", w.spec}, {"set", set}, {"title", w.title}, {"configs", w.configs}};
      if (w.configs_estimated) row["configs_estimated"] = true;
      workloads.push_back(std::move(row));
    }
    out.push_back({{"shard", shard.index},
                   {"of", shard.count},
                   {"db", shard.db},
                   {"workloads", workloads},
                   {"commands", shard.commands}});
  }
  return json_text(out, 2);
}

}  // namespace gputune
