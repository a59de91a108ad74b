package admission

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/host/apis/kube32v1"
)

// validateStaticBundle checks a StaticBundle's metadata; its name is also
// a directory of the image trees, so it follows the image name rule. Its
// spec.image, when set, is an OCI reference by the rule nodes pull by
// (images.ParseOCI): a bundle is never read from wasm:// image trees by
// reference.
func validateStaticBundle(b *kube32v1.StaticBundle) field.ErrorList {
	errs := validateMeta(b, true, nameIsDNSSubdomain)
	if b.Name != "" && len(errs) == 0 {
		if err := images.ValidateName(b.Name); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), b.Name, err.Error()))
		}
	}
	if ref := b.Spec.Image; ref != "" {
		if _, err := images.ParseOCI(ref); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("spec", "image"), ref, err.Error()+"; a StaticBundle's image is a bundle pushed with kube32 push"))
		}
	}
	return errs
}
