// The site's pages take the <posembed-…> elements from the package, as an author's page does.
import 'posembed/components';
