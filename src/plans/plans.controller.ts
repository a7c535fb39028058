import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { JwtAuth } from '../auth/auth.decorators';
import { PrismaService } from '../prisma/prisma.service';
import { PlanDto, PlanListDto } from './dto/plan.dto';

export const PUBLIC_PLANS = ['free', 'pro', 'enterprise'] as const;

export const toPlanDto = (p: PlanDto): PlanDto => ({
  id: p.id,
  name: p.name,
  apiRequestsPerMinute: p.apiRequestsPerMinute,
  managementRequestsPerMinute: p.managementRequestsPerMinute,
});

@ApiTags('Plans')
@Controller('plans')
export class PlansController {
  constructor(private readonly prisma: PrismaService) {}

  @Get()
  @JwtAuth()
  @ApiOperation({ summary: 'The plans and their rate limits' })
  @ApiOkResponse({ type: PlanListDto })
  async list(): Promise<PlanListDto> {
    const plans = await this.prisma.plan.findMany({ where: { id: { in: [...PUBLIC_PLANS] } }, orderBy: { apiRequestsPerMinute: 'asc' } });
    return { data: plans.map(toPlanDto) };
  }
}
