// libgputune_hdf5.so: one dataset of an HDF5 file read whole, through the HDF5 library (the
// only code that includes hdf5.h). Its C interface is hdf5_abi.h.
#include <hdf5.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "hdf5/hdf5_abi.h"

namespace {

// An HDF5 handle closed on every path out.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

int say(int status, char* error, size_t error_size, const std::string& message) {
  if (error != nullptr && error_size > 0) std::snprintf(error, error_size, "%s", message.c_str());
  return status;
}

// The names of the file's datasets, from its root, as "/group/name".
herr_t collect_dataset(hid_t group, const char* name, const H5L_info_t*, void* data) {
  const hid_t dataset = H5Dopen2(group, name, H5P_DEFAULT);  // fails for groups: errors are off
  if (dataset >= 0) {
    static_cast<std::vector<std::string>*>(data)->push_back(std::string("/") + name);
    H5Dclose(dataset);
  }
  return 0;
}

std::vector<std::string> datasets_of(hid_t file) {
  std::vector<std::string> names;
  H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, collect_dataset, &names);
  return names;
}

std::string listed(const std::vector<std::string>& names) {
  if (names.empty()) return "no dataset";
  std::string out;
  const size_t shown = names.size() < 20 ? names.size() : 20;
  for (size_t i = 0; i < shown; ++i) out += (i ? ", " : "") + names[i];
  if (shown < names.size()) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

const char* class_name(H5T_class_t type_class) {
  switch (type_class) {
    case H5T_STRING:
      return "strings";
    case H5T_COMPOUND:
      return "compound elements";
    case H5T_ARRAY:
      return "array elements";
    case H5T_ENUM:
      return "enum elements";
    case H5T_BITFIELD:
      return "bitfields";
    case H5T_OPAQUE:
      return "opaque elements";
    case H5T_REFERENCE:
      return "references";
    case H5T_VLEN:
      return "variable-length elements";
    default:
      return "elements of an unknown class";
  }
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int gputune_hdf5_abi(void) { return GPUTUNE_HDF5_ABI; }

__attribute__((visibility("default"))) int gputune_hdf5_read(const char* path, const char* name,
                                                             int dataset_optional,
                                                             GputuneHdf5Dataset* out, char* error,
                                                             size_t error_size) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors are ours to word
  *out = GputuneHdf5Dataset{0, 0, 0, 0, nullptr};
  Handle file(H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) {
    return say(kGputuneHdf5NoFile, error, error_size, "cannot be opened as an HDF5 file");
  }
  const std::string dataset_name = name;
  const htri_t exists = H5Lexists(file.get(), dataset_name.c_str(), H5P_DEFAULT);
  Handle dataset(exists > 0 ? H5Dopen2(file.get(), dataset_name.c_str(), H5P_DEFAULT) : -1,
                 H5Dclose);
  if (!dataset.ok()) {
    const std::vector<std::string> names = datasets_of(file.get());
    if (!dataset_optional || names.size() != 1) {
      return say(kGputuneHdf5NoDataset, error, error_size,
                 "has no dataset '" + dataset_name + "'; it holds " + listed(names));
    }
    return gputune_hdf5_read(path, names[0].c_str(), 0, out, error, error_size);
  }
  Handle file_type(H5Dget_type(dataset.get()), H5Tclose);
  const H5T_class_t type_class = H5Tget_class(file_type.get());
  if (type_class != H5T_INTEGER && type_class != H5T_FLOAT) {
    return say(kGputuneHdf5BadType, error, error_size,
               "its dataset '" + dataset_name + "' holds " + class_name(type_class) +
                   "; expected integers or floating-point numbers");
  }
  Handle memory_type(H5Tget_native_type(file_type.get(), H5T_DIR_ASCEND), H5Tclose);
  Handle space(H5Dget_space(dataset.get()), H5Sclose);
  const hssize_t points = space.ok() ? H5Sget_simple_extent_npoints(space.get()) : -1;
  if (!memory_type.ok() || points < 0) {
    return say(kGputuneHdf5Failed, error, error_size,
               "dataset '" + dataset_name + "': its type or shape cannot be read");
  }
  const size_t element_size = H5Tget_size(memory_type.get());
  const uint64_t count = static_cast<uint64_t>(points);
  auto* data = static_cast<unsigned char*>(std::malloc(count * element_size + 1));
  if (data == nullptr) return say(kGputuneHdf5Failed, error, error_size, "out of memory");
  if (count > 0 &&
      H5Dread(dataset.get(), memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    std::free(data);
    return say(kGputuneHdf5Failed, error, error_size,
               "dataset '" + dataset_name + "' cannot be read");
  }
  out->type_class = type_class == H5T_FLOAT ? kGputuneHdf5Float : kGputuneHdf5Integer;
  out->is_signed = type_class == H5T_INTEGER && H5Tget_sign(memory_type.get()) == H5T_SGN_2;
  out->element_size = element_size;
  out->count = count;
  out->data = data;
  return kGputuneHdf5Ok;
}

__attribute__((visibility("default"))) void gputune_hdf5_free(GputuneHdf5Dataset* dataset) {
  if (dataset != nullptr) std::free(dataset->data);
  if (dataset != nullptr) dataset->data = nullptr;
}

}  // extern "C"
