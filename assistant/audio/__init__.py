"""Sound in and out: devices (PortAudio), files, the echo canceller.

The errors live here, not in `devices`, so that code which only has to recognize a failing device
(the pipeline, writing to files where no PortAudio library may exist) need not import sounddevice.
"""


class AudioDeviceError(RuntimeError):
    """A sound device that is missing, cannot be opened, or failed while in use (one-line message)."""


class DeviceNotFoundError(AudioDeviceError, ValueError):
    """No device matches the configured name or index; the message lists the choices."""
