package oci

// PushBundleLayer lets the tests push hand-made layers, which PushBundle
// would refuse to write, to see that a pull refuses them.
var PushBundleLayer = pushBundleLayer
