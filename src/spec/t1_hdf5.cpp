#include "spec/t1_hdf5.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "hdf5/hdf5_abi.h"

namespace gputune {

const char* const kHdf5LibraryName = "libgputune_hdf5.so";

namespace {

namespace fs = std::filesystem;

constexpr const char* kHowToGetHdf5 =
    "install HDF5 (Debian/Ubuntu: apt-get install libhdf5-dev; tools/install-deps.sh does) and "
    "build gputune again (CMake builds libgputune_hdf5.so where it finds HDF5), or set "
    "GPUTUNE_HDF5_LIBRARY to the library's path; without HDF5, write the dataset's raw elements "
    "to a file (h5dump -b -d DATASET -o FILE) and fill the argument with BinaryRaw";

struct Hdf5Library {
  GputuneHdf5ReadFn read = nullptr;
  GputuneHdf5FreeFn free = nullptr;
  std::string problem;  // why it could not be loaded; empty when loaded
};

// The folder of the file that holds this code: the gputune program, a test, the Python module.
fs::path own_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_folder), &info) == 0 || info.dli_fname == nullptr) {
    return {};
  }
  std::error_code ignored;
  return fs::canonical(info.dli_fname, ignored).parent_path();
}

std::vector<std::string> candidates() {
  if (const char* given = std::getenv("GPUTUNE_HDF5_LIBRARY"); given && *given) return {given};
  std::vector<std::string> out;
  const fs::path here = own_folder();
  if (!here.empty()) {
    for (const fs::path& folder : {here, here.parent_path(), here.parent_path() / "lib"}) {
      if (fs::exists(folder / kHdf5LibraryName))
        out.push_back((folder / kHdf5LibraryName).string());
    }
  }
  out.push_back(kHdf5LibraryName);  // the system's search path
  return out;
}

Hdf5Library load() {
  Hdf5Library library;
  std::string tried;
  for (const std::string& path : candidates()) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      tried += (tried.empty() ? "" : "; ") + std::string(why ? why : path);
      continue;
    }
    auto abi = reinterpret_cast<GputuneHdf5AbiFn>(dlsym(handle, "gputune_hdf5_abi"));
    library.read = reinterpret_cast<GputuneHdf5ReadFn>(dlsym(handle, "gputune_hdf5_read"));
    library.free = reinterpret_cast<GputuneHdf5FreeFn>(dlsym(handle, "gputune_hdf5_free"));
    if (abi == nullptr || library.read == nullptr || library.free == nullptr ||
        abi() != GPUTUNE_HDF5_ABI) {
      library.read = nullptr;
      tried += (tried.empty() ? "" : "; ") + path + " is of another gputune version";
      continue;
    }
    return library;
  }
  library.problem = std::string(kHdf5LibraryName) + ", gputune's HDF5 reader, cannot be loaded (" +
                    tried + "): " + kHowToGetHdf5;
  return library;
}

// Loaded once per GPUTUNE_HDF5_LIBRARY value (a test changes it); never unloaded.
const Hdf5Library& library() {
  static std::mutex mutex;
  static std::map<std::string, Hdf5Library> loaded;
  const char* given = std::getenv("GPUTUNE_HDF5_LIBRARY");
  const std::string key = given ? given : "";
  std::lock_guard<std::mutex> lock(mutex);
  auto it = loaded.find(key);
  if (it == loaded.end()) it = loaded.emplace(key, load()).first;
  return it->second;
}

struct TypeOf {
  int type_class;
  int is_signed;
  size_t size;
};

TypeOf type_of(ScalarType type) {
  const bool floating = is_floating(type);
  const bool is_signed = type == ScalarType::kInt8 || type == ScalarType::kInt16 ||
                         type == ScalarType::kInt32 || type == ScalarType::kInt64;
  return {floating ? kGputuneHdf5Float : kGputuneHdf5Integer, is_signed ? 1 : 0, size_of(type)};
}

std::string element_name(const GputuneHdf5Dataset& data) {
  const std::string bits = std::to_string(data.element_size * 8);
  if (data.type_class == kGputuneHdf5Float) return "float" + bits;
  return (data.is_signed ? "int" : "uint") + bits;
}

// `fail` throws; this says so to the compiler.
[[noreturn]] void raise(const Hdf5Fail& fail, ErrorCode code, const std::string& message) {
  fail(code, message);
  throw Error(code, message);
}

}  // namespace

SharedBytes read_hdf5_dataset(const std::string& path, const std::string& dataset,
                              bool dataset_optional, ScalarType type, const Hdf5Fail& fail) {
  const Hdf5Library& hdf5 = library();
  if (hdf5.read == nullptr) raise(fail, ErrorCode::kUsage, hdf5.problem);
  GputuneHdf5Dataset data{};
  char error[2048] = {0};
  const int status = hdf5.read(path.c_str(), dataset.c_str(), dataset_optional ? 1 : 0, &data,
                               error, sizeof error);
  if (status != kGputuneHdf5Ok) {
    raise(fail, status == kGputuneHdf5NoFile ? ErrorCode::kIo : ErrorCode::kSpec, error);
  }
  std::unique_ptr<GputuneHdf5Dataset, GputuneHdf5FreeFn> owned(&data, hdf5.free);
  const TypeOf want = type_of(type);
  if (data.type_class != want.type_class || data.element_size != want.size ||
      (data.type_class == kGputuneHdf5Integer && data.is_signed != want.is_signed)) {
    raise(fail, ErrorCode::kSpec,
          "its dataset holds " + element_name(data) + " elements; expected " + type_name(type) +
              " elements, the argument's Type");
  }
  return std::make_shared<std::vector<unsigned char>>(data.data,
                                                      data.data + data.count * data.element_size);
}

}  // namespace gputune
