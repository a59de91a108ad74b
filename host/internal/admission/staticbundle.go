package admission

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/host/apis/kube32v1"
)

// validateStaticBundle checks a StaticBundle's metadata; its name is also
// a directory of the image trees, so it follows the image name rule.
func validateStaticBundle(b *kube32v1.StaticBundle) field.ErrorList {
	errs := validateMeta(b, true, nameIsDNSSubdomain)
	if b.Name != "" && len(errs) == 0 {
		if err := images.ValidateName(b.Name); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), b.Name, err.Error()))
		}
	}
	return errs
}
