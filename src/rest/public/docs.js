// Swagger UI's start-up on the API reference page (/v1/docs, src/rest/openapi.ts): a file of the service,
// not an inline script, so the page's Content Security Policy allows the service's own scripts only.
(function () {
  'use strict';
  var holder = document.getElementById('swagger-ui');
  SwaggerUIBundle({
    url: holder.getAttribute('data-url'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    // No request to validator.swagger.io: the page talks to this service only.
    validatorUrl: null,
  });
})();
