#include "spec/t1_fill.h"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "gputune/error.h"
#include "spec/t1_hdf5.h"

namespace gputune {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

class FillReader {
 public:
  FillReader(const json& item, const std::string& pointer, const JsonLocations& where,
             const std::string& t1_path, const std::string& what)
      : item_(item), pointer_(pointer), where_(where), t1_path_(t1_path), what_(what) {}

  void read(ArgumentSpec* arg) const;

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& message,
                         ErrorCode code = ErrorCode::kSpec) const {
    throw Error(code, where_.at(pointer_ + "/" + key).str() + ": " + message);
  }
  std::string data_source(const std::string& fill, const std::string& expected) const {
    if (!item_.contains("DataSource")) {
      fail("FillType", what_ + " FillType " + fill + " has no DataSource; expected " + expected);
    }
    const json& source = item_.at("DataSource");
    if (!source.is_string() || source.get<std::string>().empty()) {
      fail("DataSource", what_ + " DataSource must be a string: " + expected);
    }
    return source.get<std::string>();
  }
  std::string beside_t1(const std::string& relative) const {
    fs::path path(relative);
    if (path.is_relative()) path = fs::path(t1_path_).parent_path() / path;
    return path.lexically_normal().string();
  }
  SharedBytes raw_file(const std::string& relative, ScalarType type) const;
  SharedBytes hdf_file(const std::string& source, const std::string& name, ScalarType type) const;

  const json& item_;
  const std::string& pointer_;
  const JsonLocations& where_;
  const std::string& t1_path_;
  const std::string& what_;
};

SharedBytes FillReader::raw_file(const std::string& relative, ScalarType type) const {
  const std::string resolved = beside_t1(relative);
  std::ifstream in(resolved, std::ios::binary);
  if (!in || fs::is_directory(resolved)) {
    fail("DataSource",
         what_ + " DataSource '" + relative + "' cannot be read (looked for " + resolved +
             "); expected a file of raw elements, relative to the T1 file",
         ErrorCode::kIo);
  }
  auto bytes = std::make_shared<std::vector<unsigned char>>(std::istreambuf_iterator<char>(in),
                                                            std::istreambuf_iterator<char>());
  if (bytes->size() % size_of(type) != 0) {
    fail("DataSource", what_ + " DataSource '" + relative + "' has " +
                           std::to_string(bytes->size()) + " bytes, not a whole number of " +
                           type_name(type) + " elements (" + std::to_string(size_of(type)) +
                           " bytes each); expected raw elements of the argument's type");
  }
  return bytes;
}

// DataSource "FILE" (its dataset named as the argument, or its only dataset) or
// "FILE:DATASET" where FILE alone is no file.
SharedBytes FillReader::hdf_file(const std::string& source, const std::string& name,
                                 ScalarType type) const {
  std::string file = source, dataset = name.empty() ? "" : "/" + name;
  bool optional = true;
  const size_t colon = source.rfind(':');
  if (!fs::exists(beside_t1(source)) && colon != std::string::npos && colon > 0 &&
      colon + 1 < source.size()) {
    file = source.substr(0, colon);
    dataset = source.substr(colon + 1);
    optional = false;
  }
  const std::string resolved = beside_t1(file);
  if (!fs::is_regular_file(resolved)) {
    fail("DataSource",
         what_ + " DataSource '" + source + "' cannot be read (looked for " + resolved +
             "); expected an HDF5 file, relative to the T1 file, as " +
             "FILE (its dataset named as the argument, or its only one) or " + "FILE:DATASET",
         ErrorCode::kIo);
  }
  return read_hdf5_dataset(
      resolved, dataset, optional, type, [&](ErrorCode code, const std::string& message) {
        if (code == ErrorCode::kUsage) {
          fail("FillType", what_ + " FillType BinaryHDF: " + message, code);
        }
        fail("DataSource", what_ + " DataSource '" + source + "' " + message, code);
      });
}

void FillReader::read(ArgumentSpec* arg) const {
  std::string fill = "Random";
  if (item_.contains("FillType")) {
    if (!item_.at("FillType").is_string()) fail("FillType", "FillType must be a string");
    fill = item_.at("FillType").get<std::string>();
  }
  double fill_value = 1;
  if (item_.contains("FillValue")) {
    const json& v = item_.at("FillValue");
    if (!v.is_number()) fail("FillValue", what_ + " FillValue must be a number");
    fill_value = v.get<double>();
  }
  if (fill == "Constant") {
    arg->fill = fill_value == 0 ? Fill::kZeros : Fill::kConstant;
    arg->fill_value = fill_value;
  } else if (fill == "Random") {
    arg->fill = Fill::kRandom;
    arg->fill_low = 0;
    arg->fill_high = fill_value;
    if (item_.contains("RandomSeed") && item_.at("RandomSeed").is_number_unsigned()) {
      arg->seed = item_.at("RandomSeed").get<uint64_t>();
    }
  } else if (fill == "Generator") {
    arg->fill = Fill::kGenerator;
    arg->generator = {data_source(fill,
                                  "an expression of i, the element's index, such as "
                                  "\"sin(i) * 0.5\""),
                      where_.at(pointer_ + "/DataSource")};
  } else if (fill == "BinaryRaw") {
    arg->fill = Fill::kData;
    arg->data =
        raw_file(data_source(fill, "the path of a file of raw elements, relative to the T1 file"),
                 arg->type);
  } else if (fill == "Script") {
    fail("FillType", what_ +
                         " FillType Script is refused: gputune never runs code a file names; "
                         "expected Constant, Random, Generator (an expression of the element "
                         "index i), BinaryRaw (a file of raw elements) or BinaryHDF (a dataset "
                         "of an HDF5 file); for data a program makes, run it yourself and give "
                         "its output as BinaryRaw or BinaryHDF");
  } else if (fill == "BinaryHDF") {
    arg->fill = Fill::kData;
    const std::string name = item_.contains("Name") && item_.at("Name").is_string()
                                 ? item_.at("Name").get<std::string>()
                                 : "";
    arg->data = hdf_file(data_source(fill,
                                     "an HDF5 file relative to the T1 file, as FILE (its "
                                     "dataset named as the argument, or its only one) or "
                                     "FILE:DATASET"),
                         name, arg->type);
  } else {
    fail("FillType", what_ + " FillType '" + fill +
                         "' is not a T1 fill type; expected Constant, Random, Generator, "
                         "BinaryRaw or BinaryHDF");
  }
}

}  // namespace

void read_t1_fill(const json& item, const std::string& pointer, const JsonLocations& where,
                  const std::string& t1_path, const std::string& what, ArgumentSpec* arg) {
  FillReader(item, pointer, where, t1_path, what).read(arg);
}

}  // namespace gputune
