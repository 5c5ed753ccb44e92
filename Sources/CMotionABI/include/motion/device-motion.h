/*
 * motion/device-motion.h — the device-motion sample extension (MOTION_EXTENSION_DEVICE_MOTION).
 * Part of the motion plugin ABI; include <motion_plugin.h>, which includes every part and says how they fit.
 */
#ifndef MOTION_ABI_DEVICE_MOTION_H
#define MOTION_ABI_DEVICE_MOTION_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================== */
/* Extension: device motion                                                                       */
/* ============================================================================================== */

/** Id of the device-motion extension; get_extension returns a `const motion_device_motion_v1 *`. */
#define MOTION_EXTENSION_DEVICE_MOTION "motion.device-motion/1"

/** motion_device_motion_sample.magnetic_field_accuracy (CMMagneticFieldCalibrationAccuracy). */
#define MOTION_MAGNETIC_FIELD_ACCURACY_UNCALIBRATED (-1)
#define MOTION_MAGNETIC_FIELD_ACCURACY_LOW 0
#define MOTION_MAGNETIC_FIELD_ACCURACY_MEDIUM 1
#define MOTION_MAGNETIC_FIELD_ACCURACY_HIGH 2

/** motion_device_motion_sample.reference_frame (CMAttitudeReferenceFrame raw values). */
#define MOTION_REFERENCE_FRAME_X_ARBITRARY_Z_VERTICAL 1
#define MOTION_REFERENCE_FRAME_X_ARBITRARY_CORRECTED_Z_VERTICAL 2
#define MOTION_REFERENCE_FRAME_X_MAGNETIC_NORTH_Z_VERTICAL 4
#define MOTION_REFERENCE_FRAME_X_TRUE_NORTH_Z_VERTICAL 8

/**
 * One device-motion sample, mirroring Core Motion's CMDeviceMotion field by field, in its units and
 * conventions. Host-owned, valid only during the receive call.
 */
typedef struct motion_device_motion_sample {
    uint32_t struct_size; /**< sizeof(motion_device_motion_sample) at the host's build. */
    uint32_t reserved;    /**< 0; keeps the doubles 8-byte aligned. */
    double timestamp;     /**< s, monotonic (CMLogItem.timestamp). */
    /** Attitude quaternion (x, y, z, w), rotating device axes into the reference frame (CMQuaternion). */
    double attitude_x, attitude_y, attitude_z, attitude_w;
    double gravity_x, gravity_y, gravity_z; /**< g, device axes (CMDeviceMotion.gravity). */
    double user_acceleration_x, user_acceleration_y, user_acceleration_z; /**< g (userAcceleration). */
    double rotation_rate_x, rotation_rate_y, rotation_rate_z; /**< rad/s, device axes (rotationRate). */
    double magnetic_field_x, magnetic_field_y, magnetic_field_z; /**< µT (magneticField.field). */
    int32_t magnetic_field_accuracy; /**< MOTION_MAGNETIC_FIELD_ACCURACY_* (magneticField.accuracy). */
    int32_t reference_frame;         /**< MOTION_REFERENCE_FRAME_* the attitude is expressed in. */
    double heading; /**< degrees clockwise from north in [0, 360), or -1 when unknown (CMDeviceMotion.heading). */
} motion_device_motion_sample;

/** The device-motion extension, plugin-owned, valid for the life of the process. */
typedef struct motion_device_motion_v1 {
    uint32_t struct_size; /**< sizeof(motion_device_motion_v1) at the plugin's build. */
    /**
     * [scheduler-thread] Called with each new sample for every live performer of the plugin, whether
     * or not it holds a token. A performer that reacts (e.g. tilts its target) sets properties here.
     */
    void (*receive)(motion_performer *performer, const motion_device_motion_sample *sample);
} motion_device_motion_v1;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTION_ABI_DEVICE_MOTION_H */
