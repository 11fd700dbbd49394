# SPDX-License-Identifier: Apache-2.0
"""nn.Module: torch 1.13's base class of layers and models.

Attributes that are Parameters, registered buffers and Modules are kept in
_parameters, _buffers and _modules (in the order they were set), which is
what gives parameters(), state_dict() and repr torch's names and order.
"""
import itertools
import warnings
from collections import OrderedDict, namedtuple

from .._tensor import Tensor, _parse_to
from .._types import as_dtype
from ..autograd import no_grad
from .parameter import Parameter

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns: (missing_keys, unexpected_keys)."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def typename(o):
    """torch.typename, with 'tessera.Tensor' for any tensor."""
    if isinstance(o, Tensor):
        return "tessera.Tensor"
    module = getattr(o, "__module__", None)
    prefix = module + "." if module not in (None, "builtins", "__builtin__") else ""
    name = getattr(o, "__qualname__", None) or getattr(o, "__name__", None) or type(o).__name__
    return prefix + name


def _addindent(s_, num_spaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(num_spaces * " ") + line for line in s]
    return first + "\n" + "\n".join(s)


class RemovableHandle:
    """What register_forward_hook returns: remove() takes the hook off."""

    _ids = itertools.count()

    def __init__(self, hooks):
        self._hooks = hooks
        self.id = next(RemovableHandle._ids)

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class Module:
    """torch.nn.Module."""

    dump_patches = False
    _version = 1
    training: bool

    def __init__(self):
        set_ = object.__setattr__
        set_(self, "training", True)
        set_(self, "_parameters", OrderedDict())
        set_(self, "_buffers", OrderedDict())
        set_(self, "_non_persistent_buffers_set", set())
        set_(self, "_forward_hooks", OrderedDict())
        set_(self, "_forward_pre_hooks", OrderedDict())
        set_(self, "_modules", OrderedDict())

    def forward(self, *input):
        raise NotImplementedError('Module [%s] is missing the required "forward" function' % type(self).__name__)

    def __call__(self, *input, **kwargs):
        for hook in tuple(self._forward_pre_hooks.values()):
            result = hook(self, input)
            if result is not None:
                input = result if isinstance(result, tuple) else (result,)
        result = self.forward(*input, **kwargs)
        for hook in tuple(self._forward_hooks.values()):
            hook_result = hook(self, input, result)
            if hook_result is not None:
                result = hook_result
        return result

    def register_forward_pre_hook(self, hook):
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def register_forward_hook(self, hook):
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    # ---- registration --------------------------------------------------------

    def _check_name(self, what, name, table):
        if not isinstance(name, str):
            raise TypeError("%s name should be a string. Got %s" % (what, typename(name)))
        if "." in name:
            raise KeyError("%s name can't contain \".\"" % what)
        if name == "":
            raise KeyError("%s name can't be empty string \"\"" % what)
        if hasattr(self, name) and name not in table:
            raise KeyError("attribute '%s' already exists" % name)

    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError("cannot assign '%s' object to buffer '%s' (torch Tensor or None required)"
                            % (typename(tensor), name))
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name("parameter", name, self._parameters)
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError("cannot assign '%s' object to parameter '%s' (torch.nn.Parameter or None required)"
                            % (typename(param), name))
        elif param.grad_fn:
            raise ValueError("Cannot assign non-leaf Tensor to parameter '{0}'. Model parameters must be created "
                             "explicitly. To express '{0}' as a function of another Tensor, compute the value in "
                             "the forward() method.".format(name))
        else:
            self._parameters[name] = param

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError("%s is not a Module subclass" % typename(module))
        if not isinstance(name, str):
            raise TypeError("module name should be a string. Got %s" % typename(name))
        if hasattr(self, name) and name not in self._modules:
            raise KeyError("attribute '%s' already exists" % name)
        if "." in name:
            raise KeyError("module name can't contain \".\", got: %s" % name)
        if name == "":
            raise KeyError("module name can't be empty string \"\"")
        self._modules[name] = module

    def register_module(self, name, module):
        self.add_module(name, module)

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def _member(self, target):
        """(the submodule, the name) of a dotted parameter or buffer name."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        return mod, name

    def get_parameter(self, target):
        mod, name = self._member(target)
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        mod, name = self._member(target)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(mod, name)

    def __getattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __setattr__(self, name, value):
        d = self.__dict__

        def remove_from(*dicts_or_sets):
            for x in dicts_or_sets:
                if name in x:
                    if isinstance(x, dict):
                        del x[name]
                    else:
                        x.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError("cannot assign '%s' as parameter '%s' (torch.nn.Parameter or None expected)"
                                % (typename(value), name))
            self.register_parameter(name, value)
        else:
            modules = d.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError("cannot assign '%s' as child module '%s' (torch.nn.Module or None expected)"
                                    % (typename(value), name))
                modules[name] = value
            else:
                buffers = d.get("_buffers")
                if buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError("cannot assign '%s' as buffer '%s' (torch.Tensor or None expected)"
                                        % (typename(value), name))
                    buffers[name] = value
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = (dir(self.__class__) + list(self.__dict__) + list(self._parameters) + list(self._modules)
                + list(self._buffers))
        return sorted(k for k in keys if not k[0].isdigit())

    # ---- iteration -------------------------------------------------------------

    def _named_members(self, get_members_fn, prefix="", recurse=True):
        memo = set()  # ids: a Tensor's == is elementwise
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or id(v) in memo:
                    continue
                memo.add(id(v))
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True):
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix, recurse=recurse)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix, recurse=recurse)

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # ---- modes -------------------------------------------------------------------

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=False):
        """torch 1.13's: the gradients zeroed in place (set_to_none=False,
        the default) or dropped."""
        for p in self.parameters():
            grad = p.grad
            if grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    if grad.grad_fn is not None:
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    grad.zero_()

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- conversions ---------------------------------------------------------------

    def _apply(self, fn):
        """fn on every parameter and buffer. A Parameter stays the same
        object: its data is replaced (torch's `param.data = fn(param)`), and
        its .grad becomes fn(.grad)."""
        for module in self.children():
            module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            grad = param.grad
            with no_grad():
                applied = fn(param)
            if applied is not param:
                param.data = applied
            if grad is not None:
                with no_grad():
                    grad_applied = fn(grad)
                param.grad = grad_applied.requires_grad_(grad.requires_grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        """to(device), to(dtype), to(device, dtype), to(tensor): floating
        (and complex) parameters and buffers take the dtype, all take the
        device; a dtype that is not floating or complex is refused."""
        kwargs.pop("memory_format", None)
        dtype, device, _ = _parse_to(args, kwargs)
        if dtype is not None:
            dtype = as_dtype(dtype)
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                                "dtype=%s" % (dtype,))
            if dtype.is_complex:
                warnings.warn("Complex modules are a new feature under active development whose design may change, "
                              "and some modules might not work as expected when using complex tensors as "
                              "parameters or buffers.")

        def convert(t):
            return t.to(device=device, dtype=dtype if t.is_floating_point() or t.is_complex() else None)

        return self._apply(convert)

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def _cast_floats(self, method):
        return self._apply(lambda t: getattr(t, method)() if t.is_floating_point() else t)

    def float(self):
        return self._cast_floats("float")

    def double(self):
        return self._cast_floats("double")

    def half(self):
        return self._cast_floats("half")

    def bfloat16(self):
        return self._cast_floats("bfloat16")

    def type(self, dst_type):
        return self._apply(lambda t: t.to(dtype=dst_type))

    # ---- state_dict ------------------------------------------------------------------

    def get_extra_state(self):
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called.")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of parameters and persistent buffers by their
        dotted names, in torch's order (a module's own, then its children's),
        detached unless keep_vars; `_metadata` holds each module's version."""
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = {"version": self._version}
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        persistent_buffers = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent_buffers.items())
                       if v is not None}
        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                input_param = state_dict[key]
                if not isinstance(input_param, Tensor):
                    error_msgs.append('While copying the parameter named "%s", expected torch.Tensor or Tensor-like '
                                      'object from checkpoint but received %s' % (key, type(input_param)))
                    continue
                if len(param.shape) == 0 and len(input_param.shape) == 1:
                    input_param = input_param[0]
                if input_param.shape != param.shape:
                    error_msgs.append("size mismatch for %s: copying a param with shape %s from checkpoint, the shape "
                                      "in current model is %s." % (key, input_param.shape, param.shape))
                    continue
                try:
                    with no_grad():
                        param.copy_(input_param)
                except Exception as ex:  # noqa: BLE001  (reported with the others, as torch does)
                    error_msgs.append('While copying the parameter named "%s", whose dimensions in the model are %s '
                                      'and whose dimensions in the checkpoint are %s, an exception occurred : %s.'
                                      % (key, param.size(), input_param.size(), ex.args))
            elif strict:
                missing_keys.append(key)
        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):].split(".", 1)[0]
                    if input_name not in self._modules and input_name not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True):
        """Copies the values in place (under no_grad: the Parameter objects
        stay the same) and returns (missing_keys, unexpected_keys); with
        strict, missing or unexpected keys raise torch's RuntimeError, as
        do shape mismatches always."""
        from collections.abc import Mapping
        if not isinstance(state_dict, Mapping):
            raise TypeError("Expected state_dict to be dict-like, got %s." % type(state_dict))
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)},
                         child_prefix)

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: %s. "
                                  % ", ".join('"%s"' % k for k in unexpected_keys))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: %s. " % ", ".join('"%s"' % k for k in missing_keys))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for %s:\n\t%s"
                               % (type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ---- printing ----------------------------------------------------------------------

    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        return ""

    def __repr__(self):
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = ["(" + key + "): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"
