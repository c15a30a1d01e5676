#include "spec/t1_launch.h"

#include <cstdio>
#include <optional>

#include "spec/t1_grid.h"

namespace gputune {
namespace {

using json = nlohmann::json;

// The grid from ProblemSize and GridDivX/GridDivY, as Kernel Tuner computes it from
// problem_size and grid_div_x/y: a divisor list of parameter expressions per axis, null or
// absent meaning block_size_x/y/z where the file has that parameter. A GlobalSize that gives
// another grid at the Defaults is a warning (added to `warnings`): the grid follows the divisors.
std::vector<ExprText> divided_grid_of(const json& kernel, const T1Fields& fields, const Spec& spec,
                                      const std::vector<ExprText>& global_grid,
                                      std::vector<std::string>* warnings) {
  const std::string at = "/KernelSpecification";
  std::vector<std::string> problem_names;
  for (const auto& [name, text] : spec.problem) problem_names.push_back(name);
  if (problem_names.size() > 3) {
    fields.fail(at + "/ProblemSize", "ProblemSize has " + std::to_string(problem_names.size()) +
                                         " entries and the grid comes from it (GridDivX/GridDivY); "
                                         "expected at most 3, one per grid dimension");
  }
  std::vector<ExprText> grid;
  const char* kAxes[] = {"X", "Y", "Z"};
  const char* kBlockNames[] = {"block_size_x", "block_size_y", "block_size_z"};
  for (size_t d = 0; d < problem_names.size(); ++d) {
    const std::string key = std::string("GridDiv") + kAxes[d];
    const std::string pointer = at + "/" + key;
    std::vector<std::string> divisors;
    if (kernel.contains(key) && !kernel.at(key).is_null()) {
      const json& list = kernel.at(key);
      if (!list.is_array()) fields.fail(pointer, key + " must be a list of parameter expressions");
      for (size_t i = 0; i < list.size(); ++i) {
        divisors.push_back(fields.expression_at(list[i], pointer + "/" + std::to_string(i)));
      }
    } else {
      for (const ParameterSpec& parameter : spec.parameters) {
        if (parameter.name == kBlockNames[d]) divisors.push_back(parameter.name);
      }
    }
    const std::string problem_pointer =
        at + "/ProblemSize" +
        (problem_names.size() > 1 || problem_names[0] != "ProblemSize" ? "/" + std::to_string(d)
                                                                       : "");
    grid.push_back({divided_grid(problem_names[d], divisors),
                    fields.at(kernel.contains(key) ? pointer : problem_pointer)});
  }
  if (global_grid.empty() || !kernel.contains("GlobalSize")) return grid;
  const std::optional<std::vector<double>> from_global = at_baseline(spec, global_grid);
  const std::optional<std::vector<double>> from_divisors = at_baseline(spec, grid);
  auto padded = [](std::vector<double> v) {
    v.resize(3, 1);
    return v;
  };
  if (from_global && from_divisors && padded(*from_global) != padded(*from_divisors)) {
    auto text = [](const std::vector<double>& v) {
      std::string out;
      for (double x : v) {
        char number[32];
        std::snprintf(number, sizeof number, "%g", x);
        out += (out.empty() ? "" : ", ") + std::string(number);
      }
      return "(" + out + ")";
    };
    warnings->push_back(
        fields.at(at + "/GlobalSize").str() + ": GlobalSize gives the grid " + text(*from_global) +
        " at the Defaults, but ProblemSize with the grid divisors gives " + text(*from_divisors) +
        "; the grid is taken from ProblemSize and GridDivX/GridDivY, as BAT's "
        "runners do");
  }
  return grid;
}

}  // namespace

void read_t1_launch(const json& kernel, const T1Fields& fields, Spec* spec) {
  const std::string at = "/KernelSpecification";
  LaunchSpec launch;
  launch.kernel_name = spec->kernel_name;
  launch.where = fields.at(at);
  for (size_t a = 0; a < spec->arguments.size(); ++a) launch.arguments.push_back(a);
  std::string size_type = "CUDA";
  if (kernel.contains("GlobalSizeType")) {
    size_type = fields.string_at(kernel.at("GlobalSizeType"), at + "/GlobalSizeType");
  }
  if (size_type != "CUDA" && size_type != "OpenCL") {
    fields.fail(at + "/GlobalSizeType",
                "GlobalSizeType '" + size_type +
                    "' is not supported; expected CUDA (GlobalSize is the grid) "
                    "or OpenCL (GlobalSize counts threads)");
  }
  // BAT's runners launch a file with ProblemSize from it and the grid divisors, not GlobalSize.
  const bool divided =
      !spec->problem.empty() && (kernel.contains("GridDivX") || kernel.contains("GridDivY") ||
                                 !kernel.contains("GlobalSize"));
  const json& local =
      fields.member(kernel, at, "LocalSize", "{\"X\": ..., \"Y\": ..., \"Z\": ...}");
  const json no_global = json::object();
  const json& global =
      divided && !kernel.contains("GlobalSize")
          ? no_global
          : fields.member(kernel, at, "GlobalSize", "{\"X\": ..., \"Y\": ..., \"Z\": ...}");
  std::vector<ExprText> global_grid;
  for (const char* axis : {"X", "Y", "Z"}) {
    const bool in_global = global.contains(axis), in_local = local.contains(axis);
    if (!in_global && !in_local) break;
    const std::string g_pointer = at + "/GlobalSize/" + axis;
    const std::string l_pointer = at + "/LocalSize/" + axis;
    const std::string block = in_local ? fields.expression_at(local.at(axis), l_pointer) : "1";
    std::string grid = in_global ? fields.expression_at(global.at(axis), g_pointer) : "1";
    if (size_type == "OpenCL") grid = "ceil((" + grid + ") / (" + block + "))";
    launch.block.push_back({block, fields.at(l_pointer)});
    global_grid.push_back({grid, fields.at(g_pointer)});
  }
  if (launch.block.empty())
    fields.fail(at + "/LocalSize", "LocalSize has no X; expected at least X");
  launch.grid =
      divided ? divided_grid_of(kernel, fields, *spec, global_grid, &spec->warnings) : global_grid;
  if (kernel.contains("SharedMemory") && !kernel.at("SharedMemory").is_null()) {
    const json& shared = kernel.at("SharedMemory");
    if (!(shared.is_number() && shared.get<double>() == 0)) {
      launch.dynamic_shared_bytes = ExprText{fields.expression_at(shared, at + "/SharedMemory"),
                                             fields.at(at + "/SharedMemory")};
    }
  }
  spec->launches_where = fields.at(at);
  spec->launches.push_back(std::move(launch));
}

}  // namespace gputune
