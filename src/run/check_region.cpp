#include "run/check_region.h"

#include <cmath>

#include "core/expression.h"
#include "gputune/error.h"

namespace gputune {
namespace {

std::string dimension_list(const std::array<uint64_t, 3>& values, int dimensions) {
  std::string out = "[";
  for (int d = 3 - dimensions; d < 3; ++d) {
    out += (d > 3 - dimensions ? ", " : "") + std::to_string(values[d]);
  }
  return out + "]";
}

}  // namespace

CheckRegion CheckRegion::whole(uint64_t count) {
  CheckRegion region;
  region.shape[2] = region.end[2] = count;
  return region;
}

uint64_t CheckRegion::size() const {
  uint64_t n = 1;
  for (int d = 0; d < 3; ++d) n *= end[d] - begin[d];
  return n;
}

bool CheckRegion::is_whole() const {
  for (int d = 0; d < 3; ++d) {
    if (begin[d] != 0 || end[d] != shape[d]) return false;
  }
  return true;
}

uint64_t CheckRegion::element(uint64_t i) const {
  const uint64_t width = end[2] - begin[2], height = end[1] - begin[1];
  const uint64_t x = i % width, rest = i / width;
  const uint64_t y = rest % height, z = rest / height;
  return ((begin[0] + z) * shape[1] + begin[1] + y) * shape[2] + begin[2] + x;
}

std::string CheckRegion::coordinates(uint64_t index) const {
  const std::array<uint64_t, 3> at{index / (shape[1] * shape[2]), index / shape[2] % shape[1],
                                   index % shape[2]};
  return dimension_list(at, dimensions);
}

CheckRegion resolve_check_region(const ArgumentSpec& output, uint64_t count,
                                 const ProblemValues& values) {
  if (!output.check_region) return CheckRegion::whole(count);
  const CheckRegionSpec& spec = *output.check_region;
  const std::string what = "check region of '" + output.name + "'";
  auto fail = [&](const SourceLocation& at, const std::string& why) {
    throw Error(ErrorCode::kSpec, at.message(what + ": " + why));
  };
  Scope scope;
  for (const auto& [name, value] : values) scope.set(name, value);
  auto evaluate = [&](const ExprText& expr, const std::string& part) -> uint64_t {
    double value = 0;
    try {
      value = Expression(expr.text, scope).evaluate();
    } catch (const ExpressionError& e) {
      fail(expr.where, "cannot use " + part + " '" + expr.text + "': " + e.message);
    }
    if (!std::isfinite(value) || value < 0 || std::abs(value - std::round(value)) > 1e-9 ||
        value > 9.0e15) {
      std::string text = std::to_string(value);
      fail(expr.where, part + " = " + expr.text + " is " + text +
                           "; expected a non-negative integer (round with floor() or ceil())");
    }
    return static_cast<uint64_t>(std::llround(value));
  };

  const int dimensions = static_cast<int>(spec.begin.size());
  if (dimensions < 1 || dimensions > 3 || spec.end.size() != spec.begin.size() ||
      (!spec.shape.empty() && spec.shape.size() != spec.begin.size())) {
    fail(spec.where, "begin, end and shape must list the same number (1 to 3) of dimensions");
  }
  if (spec.shape.empty() && dimensions != 1) {
    fail(spec.where, "a region of " + std::to_string(dimensions) +
                         " dimensions needs shape: [...]; expected the output's dimensions, "
                         "row-major (the last one contiguous)");
  }
  CheckRegion region;
  region.dimensions = dimensions;
  for (int i = 0; i < dimensions; ++i) {
    const int d = 3 - dimensions + i;
    const std::string index = "[" + std::to_string(i) + "]";
    region.shape[d] = spec.shape.empty() ? count : evaluate(spec.shape[i], "shape" + index);
    region.begin[d] = evaluate(spec.begin[i], "begin" + index);
    region.end[d] = evaluate(spec.end[i], "end" + index);
    if (region.begin[d] > region.end[d] || region.end[d] > region.shape[d]) {
      fail(spec.end[i].where, "begin" + index + " = " + std::to_string(region.begin[d]) + ", end" +
                                  index + " = " + std::to_string(region.end[d]) + ", shape" +
                                  index + " = " + std::to_string(region.shape[d]) +
                                  "; expected 0 <= begin <= end <= shape");
    }
  }
  const uint64_t product = region.shape[0] * region.shape[1] * region.shape[2];
  if (product != count) {
    fail(spec.shape.empty() ? spec.where : spec.shape.front().where,
         "shape " + dimension_list(region.shape, dimensions) + " holds " + std::to_string(product) +
             " elements, but '" + output.name + "' has " + std::to_string(count) +
             "; expected a shape whose product is its count");
  }
  if (region.size() == 0) {
    fail(spec.where,
         "the region is empty at these problem values; expected at least one "
         "element to compare (or check: none)");
  }
  return region;
}

}  // namespace gputune
