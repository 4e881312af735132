// safetensors files for Python (ditto/serialization.py builds save_safetensors, load_safetensors
// and the checkpoint functions on these two).
#include "ditto/serialize.h"

#include <map>

#include "common.h"
#include "ditto/audit.h"

namespace ditto::python {

void bind_serialize(py::module_& m) {
  // ditto.audit (ditto/audit.py)
  m.def("_audit_start", &audit::start, py::arg("path"), py::arg("values") = "", py::arg("recorder") = "");
  m.def("_audit_hash", &audit::hash, py::arg("tensor"));
  m.def("_audit_record", &audit::record, py::arg("op"), py::arg("kernel"), py::arg("backward"), py::arg("args"),
        py::arg("before"));
  m.def("_audit_stop", &audit::stop);
  m.def("_audit_enabled", &audit::enabled);
  m.def("_audit_mark", &audit::mark, py::arg("name"), py::arg("value"));
  m.def("_audit_push_module", &audit::push_module, py::arg("name"));
  m.def("_audit_pop_module", &audit::pop_module);
  // ditto::fingerprint of tensors (their bits in logical order, xxHash), as hex: what the C++
  // examples print to show two runs hold the same bits.
  m.def(
      "_fingerprint", [](const std::vector<Tensor>& ts) { return fingerprint_hex(fingerprint(ts)); },
      py::arg("tensors"));
  m.def(
      "_save_safetensors",
      [](const py::dict& tensors, const std::string& path, const std::map<std::string, std::string>& metadata) {
        StateDict s;
        for (const auto& [k, v] : tensors) {
          if (!py::isinstance<py::str>(k)) raise_type_error("save_safetensors: tensor names must be str");
          if (!is_tensor(v)) raise_type_error("save_safetensors: \"" + py::cast<std::string>(k) + "\" is not a Tensor");
          s.insert(py::cast<std::string>(k), py::cast<Tensor>(v));
        }
        save_safetensors(path, s, Metadata(metadata.begin(), metadata.end()));
      },
      py::arg("tensors"), py::arg("path"), py::arg("metadata"));
  // (tensors in the file's order, metadata)
  m.def(
      "_load_safetensors",
      [](const std::string& path) {
        const SafetensorsFile f = load_safetensors(path);
        py::dict t;
        for (const auto& [k, v] : f.tensors) t[py::str(k)] = v;
        return py::make_tuple(t, f.metadata);
      },
      py::arg("path"));
}

}  // namespace ditto::python
