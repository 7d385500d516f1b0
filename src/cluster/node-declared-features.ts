// The features the Node declares in status.declaredFeatures (NodeDeclaredFeatures, GA and locked
// on in 1.37). The kubelet computes the list once at start (kubelet_node_declared_features.go
// discoverNodeDeclaredFeatures): every feature of component-helpers' registry
// (nodedeclaredfeatures/features/registry.go AllFeatures) whose Discover says yes, in registry
// order. With 1.37's default gates a kubelet declares RestartAllContainersOnContainerExits,
// InPlacePodLevelResourcesVerticalScaling, ExtendWebSocketsToKubelet and
// InPlacePodVerticalScalingInitContainers. The scheduler's NodeDeclaredFeatures filter sends a
// pod that needs a feature (InferForScheduling) only to nodes that declare it, so probelet
// declares only what it really does: no in-place resize, and its daemon endpoint serves no
// WebSocket exec, attach or port-forward.

/**
 * DECLARED_FEATURES are the features a probelet node declares, in the registry's order.
 *
 * RestartAllContainersOnContainerExits (restartallcontainers/restart_all_containers.go): a pod
 * with a restartPolicyRules action RestartAllContainers needs it. The restartPolicyRules action
 * RestartAllContainers is being implemented on the fidelity-137 branch (KEP-5532); declared here
 * on that basis — reconcile with that branch when merging (drop it if that work does not land).
 */
export const DECLARED_FEATURES: readonly string[] = ["RestartAllContainersOnContainerExits"];
