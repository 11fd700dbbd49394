# SPDX-License-Identifier: Apache-2.0
"""tessera.optim.lr_scheduler: StepLR and CosineAnnealingLR, torch 1.13's.

A scheduler needs only optimizer.param_groups (a list of dicts with 'lr')
and, to warn as torch does when it is stepped before the optimizer, a
bound optimizer.step. The formulas are torch's chainable ones (each lr from
the previous one), and _get_closed_form_lr answers step(epoch), so that the
learning rates match torch's to the last bit.
"""
import math
import warnings
import weakref
from functools import wraps

__all__ = ["LRScheduler", "_LRScheduler", "StepLR", "CosineAnnealingLR"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. Please use "
    "`scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, the closed "
    "form is used instead of the new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.")

_OVERRIDDEN = ("Seems like `optimizer.step()` has been overridden after learning rate scheduler initialization. "
               "Please, make sure to call `optimizer.step()` before `lr_scheduler.step()`. See more details at "
               "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")
_BEFORE_OPTIMIZER = ("Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, "
                     "you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  "
                     "Failure to do this will result in PyTorch skipping the first value of the learning rate "
                     "schedule. See more details at "
                     "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")
_USE_GET_LAST_LR = "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."


def _with_counter(method):
    """optimizer.step wrapped to count its calls in optimizer._step_count."""
    if getattr(method, "_with_counter", False):
        return method
    instance_ref = weakref.ref(method.__self__)
    func = method.__func__
    cls = instance_ref().__class__
    del method

    @wraps(func)
    def wrapper(*args, **kwargs):
        instance = instance_ref()
        instance._step_count += 1
        return func.__get__(instance, cls)(*args, **kwargs)

    wrapper._with_counter = True
    return wrapper


class LRScheduler:
    """torch.optim.lr_scheduler._LRScheduler (LRScheduler in later torch):
    sets each group's 'initial_lr' (or, when resuming with last_epoch >= 0,
    requires it), then takes the first step."""

    def __init__(self, optimizer, last_epoch=-1, verbose=False):
        if not isinstance(getattr(optimizer, "param_groups", None), list):
            raise TypeError("{} is not an Optimizer".format(type(optimizer).__name__))
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError("param 'initial_lr' is not specified in param_groups[{}] when resuming an "
                                   "optimizer".format(i))
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        step = getattr(optimizer, "step", None)
        if getattr(step, "__self__", None) is optimizer:
            self.optimizer.step = _with_counter(step)
        self.verbose = verbose
        self._initial_step()

    def _initial_step(self):
        self.optimizer._step_count = 0
        self._step_count = 0
        self.step()

    def state_dict(self):
        """Everything but the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    def print_lr(self, is_verbose, group, lr, epoch=None):
        if is_verbose:
            if epoch is None:
                print("Adjusting learning rate of group {} to {:.4e}.".format(group, lr))
            else:
                epoch_str = ("%.2f" if isinstance(epoch, float) else "%.5d") % epoch
                print("Epoch {}: adjusting learning rate of group {} to {:.4e}.".format(epoch_str, group, lr))

    def step(self, epoch=None):
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_with_counter"):
                warnings.warn(_OVERRIDDEN, UserWarning)
            elif self.optimizer._step_count < 1:
                warnings.warn(_BEFORE_OPTIMIZER, UserWarning)
        self._step_count += 1
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning)
                self.last_epoch = epoch
                values = self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr") else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for i, (param_group, lr) in enumerate(zip(self.optimizer.param_groups, values)):
            param_group["lr"] = lr
            self.print_lr(self.verbose, i, lr, epoch)
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _warn_outside_step(self):
        if not self._get_lr_called_within_step:
            warnings.warn(_USE_GET_LAST_LR, UserWarning)


_LRScheduler = LRScheduler  # torch 1.13's name


class StepLR(LRScheduler):
    """Multiplies each group's lr by gamma every step_size epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [group["lr"] for group in self.optimizer.param_groups]
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """lr from base_lr down to eta_min along half a cosine over T_max
    epochs (and back up after it), in torch's recursive form."""

    def __init__(self, optimizer, T_max, eta_min=0, last_epoch=-1, verbose=False):  # noqa: N803  (torch's name)
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch, verbose)

    def get_lr(self):
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group["lr"] for group in groups]
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, groups)]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max)) * (group["lr"] - self.eta_min)
                + self.eta_min for group in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]
